// SPDX-License-Identifier: Apache-2.0

package counters

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/dcbtop/dcbtop/capture/rdma"
)

// EnvEthtoolRoot is the environment variable that names a directory of
// recorded ethtool outputs to read instead of the ethtool ioctls, as
// EnvSysfsRoot stands for /sys: DIR/IFNAME/ethtool-i.txt (what `ethtool
// -i IFNAME` prints: the driver) and DIR/IFNAME/ethtool-S.txt (what
// `ethtool -S IFNAME` prints: the driver's statistics). Tests, the demo
// and a support case replay a NIC's statistics with it. The package
// never reads it: the command does, and passes a FileEthtool.
const EnvEthtoolRoot = "DCBTOP_ETHTOOL_ROOT"

// maxEthtoolFile bounds a recorded ethtool output (mlx5's `ethtool -S`
// is about 60 KB with every queue's statistics).
const maxEthtoolFile = 1 << 20

// A FileEthtool is an Ethtool over recorded outputs of ethtool(8) under
// Root (see EnvEthtoolRoot), read again at every call, so a file
// rewritten between samples makes counters move. An interface without
// files has no statistics, as a veth has no pause counters.
type FileEthtool struct{ Root string }

// DriverName returns the driver `ethtool -i` names in ifname's
// ethtool-i.txt.
func (f FileEthtool) DriverName(ifname string) (string, error) {
	b, err := f.read(ifname, "ethtool-i.txt")
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "driver:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s: no driver: line", filepath.Join(f.Root, ifname, "ethtool-i.txt"))
}

// Stats returns the statistics in ifname's ethtool-S.txt.
func (f FileEthtool) Stats(ifname string) (map[string]uint64, error) {
	b, err := f.read(ifname, "ethtool-S.txt")
	if err != nil {
		return nil, err
	}
	return ParseEthtoolStats(b)
}

// read reads one recorded output of ifname, at most maxEthtoolFile bytes.
func (f FileEthtool) read(ifname, name string) ([]byte, error) {
	if !rdma.ValidIfname(ifname) {
		return nil, fmt.Errorf("invalid interface name %q", ifname)
	}
	path := filepath.Join(f.Root, ifname, name)
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxEthtoolFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxEthtoolFile {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxEthtoolFile)
	}
	return b, nil
}

// ParseEthtoolStats reads what `ethtool -S` prints: a header line ("NIC
// statistics:") and one "name: value" line per statistic, indented. A
// line that is not a statistic with a decimal value is an error, with
// its line number; a name given twice keeps its last value, as the
// kernel's list may repeat one (ethtool prints what the driver gives).
// A driver's names are ETH_GSTRING_LEN printable strings
// (include/uapi/linux/ethtool.h), so a name holding a control character
// (a carriage return inside a line, say) is an error too, not a name.
func ParseEthtoolStats(b []byte) (map[string]uint64, error) {
	stats := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxEthtoolFile)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || (n == 1 && strings.HasSuffix(line, "statistics:")) {
			continue
		}
		i := strings.LastIndex(line, ":")
		if i <= 0 {
			return nil, fmt.Errorf("ethtool -S line %d: %q is not name: value", n, line)
		}
		name := strings.TrimSpace(line[:i])
		v, err := strconv.ParseUint(strings.TrimSpace(line[i+1:]), 10, 64)
		if err != nil || name == "" || strings.ContainsFunc(name, unicode.IsControl) {
			return nil, fmt.Errorf("ethtool -S line %d: %q is not name: value", n, line)
		}
		stats[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ethtool -S: %w", err)
	}
	return stats, nil
}
