// SPDX-License-Identifier: Apache-2.0

package rdma

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/dcbtop/dcbtop/capture/hostfs"
)

// A WriteFS is a tree that stands for /sys, read as hostfs.FS reads it,
// in which rdma_cm's configfs defaults can also be set: Mkdir makes a
// directory (in configfs, rdma_cm/DEV: the subsystem's make_group,
// drivers/infiniband/core/cma_configfs.c make_cma_dev), WriteFile
// writes an attribute that exists (default_roce_tos_store). Names are
// slash-separated, clean and relative to the root, as hostfs.FS's are;
// errors wrap the operation's cause as os's do (errors.Is with
// fs.ErrPermission, fs.ErrNotExist, or the syscall.Errno itself).
type WriteFS interface {
	hostfs.FS
	// Mkdir makes the directory name, whose parent exists.
	Mkdir(name string) error
	// WriteFile writes data to the existing file name in one write,
	// truncating it first. It never creates a file: configfs
	// attributes are made by the kernel, so a missing one is an error
	// (errors.Is with fs.ErrNotExist), not a new file.
	WriteFile(name string, data []byte) error
}

// DirWriter returns the WriteFS of the host's files under root (a
// directory that stands for /sys, as hostfs.Dir's root; "" is the
// current directory). Reads are hostfs.Dir's. Mkdir makes a directory
// with mode 0755 and WriteFile opens an existing regular file
// write-only and truncated, never creating one; both refuse a name that
// is not clean, is absolute, or climbs out of root ("..", or a symbolic
// link leading outside it: they go through os.Root).
func DirWriter(root string) WriteFS {
	if root == "" {
		root = "."
	}
	return dirWriter{FS: hostfs.Dir(root), root: root}
}

type dirWriter struct {
	hostfs.FS
	root string
}

// ownError is an error of dirWriter's own that errors.Is matches with
// is, as os's errors match fs.ErrNotExist.
type ownError struct {
	msg string
	is  error
}

func (e ownError) Error() string        { return e.msg }
func (e ownError) Is(target error) bool { return target == e.is }

var (
	errNoAttribute = ownError{"no such attribute", fs.ErrNotExist}
	errBadPath     = ownError{"not a clean path relative to the root", fs.ErrInvalid}
)

// open opens the root for one operation on name, which it checks first.
func (d dirWriter) open(op, name string) (*os.Root, error) {
	if name == "." || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: errBadPath}
	}
	return os.OpenRoot(d.root)
}

func (d dirWriter) Mkdir(name string) error {
	r, err := d.open("mkdir", name)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Mkdir(name, 0o755)
}

func (d dirWriter) WriteFile(name string, data []byte) error {
	r, err := d.open("write", name)
	if err != nil {
		return err
	}
	defer r.Close()
	// No O_CREATE: a missing attribute stays missing. O_NONBLOCK: a FIFO
	// where an attribute should be must not hang the writer; it is
	// refused below as not a regular file.
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_TRUNC|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "write", Path: name, Err: errNoAttribute}
	}
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "write", Path: name, Err: hostfs.ErrNotRegular}
	}
	if err == nil {
		// One write: configfs hands each write to the attribute's
		// store (fs/configfs/file.c), which takes the whole value.
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// A ToSWrite is what SetDefaultToS did to rdma_cm's default ToS of one
// port (configfs rdma_cm/DEV/ports/P/default_roce_tos,
// drivers/infiniband/core/cma_configfs.c default_roce_tos_store).
type ToSWrite struct {
	// Dev is the RDMA device ("mlx5_0") and Port the port's number as
	// its directory under rdma_cm/DEV/ports/ is named ("1").
	Dev, Port string
	// Before is the value read before the write. rdma_cm keeps the
	// value with the device, not with its configfs directory (cma.c
	// cma_get_default_roce_tos), so once rdma_cm/DEV exists, made by
	// SetDefaultToS or not, it reads the value in force; it is unknown,
	// with the reason, only when it could not be read.
	Before Value[ToS]
	// After is the value read back after the write.
	After ToS
	// Created: rdma_cm/DEV did not exist and SetDefaultToS made it
	// (cma_configfs.c make_cma_dev). It is left in place: removing it
	// would not restore anything, the kernel keeps the value written.
	Created bool
}

// String is a one-line account of the write: "mlx5_0 port 1:
// default_roce_tos 0 → 106 (DSCP 26, ECN ECT(0)) (rdma_cm/mlx5_0
// created); applies to new rdma_cm connections".
func (w ToSWrite) String() string {
	before := "unknown"
	if w.Before.Known {
		before = strconv.Itoa(int(w.Before.V.Byte))
	}
	s := oneLine(w.Dev) + " port " + oneLine(w.Port) + ": default_roce_tos " + before + " → " + w.After.String()
	if w.Created {
		s += " (rdma_cm/" + oneLine(w.Dev) + " created)"
	}
	// cma.c reads the default when a connection resolves its route
	// (cma_resolve_iboe_route): connections made before keep theirs.
	return s + "; applies to new rdma_cm connections"
}

// String is the octet in decimal with its fields: "106 (DSCP 26, ECN
// ECT(0))", the ECN field named as RFC 3168 does (Not-ECT, ECT(1),
// ECT(0), CE).
func (t ToS) String() string {
	return strconv.Itoa(int(t.Byte)) + " (DSCP " + strconv.Itoa(int(t.DSCP)) + ", ECN " + ecnName(t.ECN) + ")"
}

func ecnName(ecn uint8) string {
	switch ecn {
	case 0:
		return "Not-ECT"
	case 1:
		return "ECT(1)"
	case 2:
		return "ECT(0)"
	case 3:
		return "CE"
	}
	return strconv.Itoa(int(ecn))
}

// maxDevName is the size of the kernel's RDMA device name buffer
// (IB_DEVICE_NAME_MAX, include/rdma/ib_verbs.h; cma_configfs.c struct
// cma_dev_group keeps the name in one): no device has a longer name.
const maxDevName = 64

// checkDev says what is wrong with dev as an RDMA device name to splice
// into a configfs path, "" when nothing is: it must be 1 to maxDevName
// bytes of printable ASCII without spaces, without '/', and not "." or
// "..".
func checkDev(dev string) string {
	switch {
	case dev == "":
		return "empty"
	case len(dev) > maxDevName:
		return "longer than " + strconv.Itoa(maxDevName) + " bytes"
	case dev == "." || dev == "..":
		return "not a name"
	case strings.Contains(dev, "/"):
		return "contains '/'"
	}
	for i := 0; i < len(dev); i++ {
		if c := dev[i]; c <= ' ' || c >= 0x7f {
			return "not printable ASCII"
		}
	}
	return ""
}

// checkPort says what is wrong with port as the name of a port's
// directory, "" when nothing is: the kernel names them "%u", 1 to the
// device's port count (cma_configfs.c make_cma_ports); 1 to 255 is taken.
func checkPort(port string) string {
	n, err := strconv.Atoi(port)
	if err != nil || strconv.Itoa(n) != port || n < 1 || n > 255 {
		return "not a decimal number 1-255"
	}
	return ""
}

// A writeError is one line naming the path (relative to the root), what
// was done and why it failed; it wraps the cause.
type writeError struct {
	msg string
	err error
}

func (e *writeError) Error() string { return e.msg }
func (e *writeError) Unwrap() error { return e.err }

// cause is err in words without the machine's path: the errno's text.
func cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return oneLine(err.Error())
}

// SetDefaultToS sets rdma_cm's default ToS of port port of the RDMA
// device dev to tos, in fsys, the tree that stands for /sys, and reads
// it back. rdma_cm stamps that ToS on the connections it makes on the
// port when the application sets none (cma.c cma_resolve_iboe_route);
// connections made before keep theirs.
//
// It refuses a device name or port that is not one (a device name:
// 1-64 bytes of printable ASCII without spaces or '/'; a port: a
// decimal number 1-255) before touching anything. When
// kernel/config/rdma_cm/DEV does not exist it makes it
// (drivers/infiniband/core/cma_configfs.c make_cma_dev, which fails
// with ENODEV for a name that is not an RDMA device and makes
// ports/1..N with it), and leaves it in place. It reads the value
// before (Before), writes tos in decimal and a newline to
// ports/P/default_roce_tos (default_roce_tos_store: kstrtou8, EINVAL
// for anything else), and reads it back (After).
//
// An error is one line naming the path, relative to the root, and wraps
// the cause (errors.Is with fs.ErrPermission, syscall.ENODEV,
// syscall.EINVAL, fs.ErrNotExist); with it, the ToSWrite says what was
// done (Created) and read.
func SetDefaultToS(fsys WriteFS, dev, port string, tos uint8) (ToSWrite, error) {
	w := ToSWrite{Dev: dev, Port: port}
	if why := checkDev(dev); why != "" {
		return w, errors.New("invalid RDMA device name " + strconv.Quote(dev) + ": " + why + "; nothing done")
	}
	if why := checkPort(port); why != "" {
		return w, errors.New("invalid port " + strconv.Quote(port) + " of " + dev + ": " + why + "; nothing done")
	}
	r := &reader{fs: fsys}
	devDir := configfsDir + "/" + dev
	portDir := devDir + "/ports/" + port
	tosRel := portDir + "/default_roce_tos"
	// fail returns the error, saying that rdma_cm/DEV was made.
	fail := func(msg string, err error) (ToSWrite, error) {
		if w.Created {
			msg += "; mkdir made " + devDir + ", which is left in place"
		}
		return w, &writeError{msg: msg, err: err}
	}

	fi, err := fsys.Stat(configfsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(configfsDir+": missing (configfs not mounted on /sys/kernel/config, or rdma_cm not loaded); nothing done", err)
	case err != nil:
		return fail(configfsDir+": "+cause(err)+"; nothing done", err)
	case !fi.Dir:
		return fail(configfsDir+": not a directory; nothing done", syscall.ENOTDIR)
	}

	if !r.isDir(devDir) {
		err := fsys.Mkdir(devDir)
		switch {
		case err == nil:
			w.Created = true
		case errors.Is(err, fs.ErrExist):
			// Made since the look: by someone else.
		case errors.Is(err, syscall.ENODEV):
			return fail(devDir+": mkdir: "+cause(err)+" (ENODEV: "+dev+" is not an RDMA device)", err)
		case errors.Is(err, fs.ErrPermission):
			return fail(devDir+": mkdir: "+cause(err)+" (configfs needs root)", err)
		default:
			return fail(devDir+": mkdir: "+cause(err), err)
		}
	}
	if !r.isDir(portDir) {
		ports, problem := r.indexes(devDir + "/ports")
		have := "no ports"
		switch {
		case problem != "":
			have = oneLine(problem)
		case len(ports) > 0:
			have = "ports " + joinInts(ports)
		}
		return fail(devDir+" has no port "+port+" ("+have+")", fs.ErrNotExist)
	}

	w.Before = value(r, tosRel, parseToS)
	written := strconv.Itoa(int(tos))
	if err := fsys.WriteFile(tosRel, []byte(written+"\n")); err != nil {
		msg := tosRel + ": write " + written + ": " + cause(err)
		switch {
		case errors.Is(err, fs.ErrPermission):
			msg += " (configfs needs root)"
		case errors.Is(err, syscall.EINVAL):
			msg += " (EINVAL: the kernel refused " + written + " for port " + port + ")"
		case errors.Is(err, syscall.ENODEV):
			msg += " (ENODEV: " + dev + " is gone)"
		}
		return fail(msg, err)
	}
	after := value(r, tosRel, parseToS)
	if !after.Known {
		return fail(tosRel+": wrote "+written+", reads back "+after.Why, nil)
	}
	w.After = after.V
	if after.V.Byte != tos {
		return fail(tosRel+": wrote "+written+", reads back "+strconv.Itoa(int(after.V.Byte)), nil)
	}
	return w, nil
}

// UndoDefaultToS sets the default ToS w changed back to w.Before, as
// SetDefaultToS does (the same checks, read back), and returns that
// write. When w.Before is not known it refuses, changing nothing. It
// never removes rdma_cm/DEV: that would not restore anything, the kernel
// keeps the value written (drivers/infiniband/core/cma_configfs.c keeps
// no state of its own; the value is the device's).
func UndoDefaultToS(fsys WriteFS, w ToSWrite) (ToSWrite, error) {
	if !w.Before.Known {
		why := w.Before.Why
		if why == "" {
			why = "no value was read"
		}
		return ToSWrite{Dev: w.Dev, Port: w.Port}, errors.New(oneLine(w.Dev) + " port " + oneLine(w.Port) +
			": the ToS before was not known (" + oneLine(why) + "): nothing changed; set one with SetDefaultToS")
	}
	return SetDefaultToS(fsys, w.Dev, w.Port, w.Before.V.Byte)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
