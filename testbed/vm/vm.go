// SPDX-License-Identifier: Apache-2.0

// Package vm boots a real Linux kernel for the tests that need one: the
// Debian kernel installed on this machine (linux-image-amd64), under QEMU
// (qemu-system-x86), with this machine's root filesystem shared read-only
// over 9p, so that every installed tool and the freshly built dcbtop are
// in the guest. A small busybox initramfs (busybox-static) loads the 9p
// modules, mounts the root and the guest's scratch directories, and runs
// a script as its child: PID 1 stays the initramfs's shell, which powers
// the guest off when the script ends, so a failing script never panics
// the kernel and its output is never lost. The script's exit status and
// its files come back in a directory the host shares read-write (Out).
//
// KVM is used where /dev/kvm starts a guest; where it does not (nested
// KVM on these machines asserts on MSR 0x10a with -cpu host), TCG.
package vm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EnvKernel names a kernel release to boot (as in /lib/modules) instead of
// the newest one installed with its modules and headers.
const EnvKernel = "DCBTOP_VM_KERNEL"

// EnvAccel forces "kvm" or "tcg" instead of trying KVM first.
const EnvAccel = "DCBTOP_VM_ACCEL"

// Packages are the Debian packages the harness and the guest's tests
// need (make deps installs them).
var Packages = []string{"qemu-system-x86", "linux-image-amd64", "linux-headers-amd64", "busybox-static"}

// A Kernel is an installed kernel the harness can boot and build modules
// for.
type Kernel struct {
	Release string // uname -r of the guest, as /lib/modules names it
	Image   string // /boot/vmlinuz-RELEASE
	Build   string // /lib/modules/RELEASE/build: kbuild for out-of-tree modules
}

// FindKernel returns the newest installed kernel with its image, its
// modules and its headers (EnvKernel picks another), or an error saying
// what is missing and which package brings it.
func FindKernel() (Kernel, error) {
	var releases []string
	if r := os.Getenv(EnvKernel); r != "" {
		releases = []string{r}
	} else {
		imgs, _ := filepath.Glob("/boot/vmlinuz-*")
		for _, img := range imgs {
			releases = append(releases, strings.TrimPrefix(filepath.Base(img), "vmlinuz-"))
		}
		slices.SortFunc(releases, compareReleases)
		slices.Reverse(releases)
	}
	var why []string
	for _, r := range releases {
		k := Kernel{Release: r, Image: "/boot/vmlinuz-" + r, Build: "/lib/modules/" + r + "/build"}
		switch {
		case !exists(k.Image):
			why = append(why, r+": no "+k.Image)
		case !exists("/lib/modules/" + r + "/modules.dep"):
			why = append(why, r+": no modules in /lib/modules/"+r)
		case !exists(filepath.Join(k.Build, "Makefile")):
			why = append(why, r+": no headers in "+k.Build+" (linux-headers-amd64)")
		default:
			return k, nil
		}
	}
	if len(why) == 0 {
		why = append(why, "no /boot/vmlinuz-* (linux-image-amd64)")
	}
	return Kernel{}, fmt.Errorf("no kernel to boot: %s", strings.Join(why, "; "))
}

// compareReleases orders kernel releases by their numbers (6.1.0-57 after
// 6.1.0-9).
func compareReleases(a, b string) int {
	split := func(s string) []int {
		var out []int
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
		return out
	}
	return slices.Compare(split(a), split(b))
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// BuildModule builds the out-of-tree module whose sources (a Kbuild file
// and its .c files) are in src for k, in a copy under dir, and returns the
// path of name.ko.
func (k Kernel) BuildModule(ctx context.Context, src, dir, name string) (string, error) {
	files, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, f := range files {
		if f.IsDir() || !(f.Name() == "Kbuild" || strings.HasSuffix(f.Name(), ".c") || strings.HasSuffix(f.Name(), ".h")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, "make", "-s", "-C", k.Build, "M="+dir, "modules")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s for %s: %v\n%s", name, k.Release, err, out)
	}
	return filepath.Join(dir, name+".ko"), nil
}

// rootModules are the modules the initramfs loads to mount the root over
// 9p (with what they depend on, in order, as modprobe --show-depends
// says).
var rootModules = []string{"virtio_pci", "9pnet_virtio", "9p"}

// initScript is the initramfs's /init: PID 1 for the guest's life.
const initScript = `#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do
	insmod /mods/$m || echo "dcbtop-vm: insmod $m failed"
done
fail() { echo "dcbtop-vm: $*"; poweroff -f; }
mkdir -p /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose root /newroot || fail "cannot mount the root over 9p"
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t tmpfs tmpfs /newroot/tmp
mount -t tmpfs tmpfs /newroot/run
mount -t tmpfs tmpfs /newroot/var/tmp
mount -t tmpfs tmpfs /newroot/var/lib
mount -t tmpfs tmpfs /newroot/root
mkdir -p /newroot/run/lock /newroot/tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /newroot/tmp/out || fail "cannot mount the output directory"
hostname dcbtop-vm
echo "dcbtop-vm: up"
chroot /newroot /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TMPDIR=/tmp DCBTOP_IN_VM=1 /bin/sh /tmp/out/run.sh
echo "dcbtop-vm: script exited $?"
sync
umount /newroot/tmp/out
poweroff -f
`

// Initramfs writes the guest's initramfs for k to path: busybox, the 9p
// modules and /init.
func (k Kernel) Initramfs(ctx context.Context, path string) error {
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return fmt.Errorf("busybox (busybox-static): %w", err)
	}
	tree, err := os.MkdirTemp("", "dcbtop-initramfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tree)
	for _, d := range []string{"bin", "proc", "sys", "dev", "mods", "newroot"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			return err
		}
	}
	if err := copyFile(bb, filepath.Join(tree, "bin/busybox"), 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bb, "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	for _, applet := range strings.Fields(string(out)) {
		if applet != "busybox" {
			if err := os.Symlink("busybox", filepath.Join(tree, "bin", applet)); err != nil {
				return err
			}
		}
	}
	var order []string
	for _, m := range rootModules {
		dep, err := exec.CommandContext(ctx, "modprobe", "-S", k.Release, "--show-depends", m).Output()
		if err != nil {
			return fmt.Errorf("modprobe -S %s --show-depends %s: %w", k.Release, m, err)
		}
		for _, line := range strings.Split(string(dep), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || f[0] != "insmod" {
				continue // builtin
			}
			base := filepath.Base(f[1])
			if slices.Contains(order, base) {
				continue
			}
			if err := copyModule(f[1], filepath.Join(tree, "mods", strings.TrimSuffix(strings.TrimSuffix(base, ".xz"), ".zst"))); err != nil {
				return err
			}
			order = append(order, strings.TrimSuffix(strings.TrimSuffix(base, ".xz"), ".zst"))
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "modules.order"), []byte(strings.Join(order, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tree, "init"), []byte(initScript), 0o755); err != nil {
		return err
	}
	// The newc cpio archive, by busybox's cpio.
	var list bytes.Buffer
	err = filepath.Walk(tree, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(tree, p); rel != "." {
			list.WriteString(rel + "\n")
		}
		return nil
	})
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	cpio := exec.CommandContext(ctx, bb, "cpio", "-o", "-H", "newc")
	cpio.Dir, cpio.Stdin, cpio.Stdout = tree, &list, f
	var stderr bytes.Buffer
	cpio.Stderr = &stderr
	err = cpio.Run()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cpio: %v: %s", err, stderr.Bytes())
	}
	return nil
}

// copyModule copies a module, decompressing an .xz or .zst one (busybox's
// insmod takes them plain).
func copyModule(src, dst string) error {
	switch {
	case strings.HasSuffix(src, ".xz"):
		return decompress(dst, "xz", "-dc", src)
	case strings.HasSuffix(src, ".zst"):
		return decompress(dst, "zstd", "-dc", src)
	}
	return copyFile(src, dst, 0o644)
}

func decompress(dst, tool string, args ...string) error {
	out, err := exec.Command(tool, args...).Output()
	if err != nil {
		return fmt.Errorf("%s %s: %w", tool, strings.Join(args, " "), err)
	}
	return os.WriteFile(dst, out, 0o644)
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, mode)
}

// A Boot is one guest's run.
type Boot struct {
	Kernel  Kernel
	Initrd  string // from Initramfs
	Out     string // the directory shared read-write: /tmp/out in the guest
	Script  string // run.sh's text, run as root in the guest's root
	Memory  int    // MiB; 0: 1536
	CPUs    int    // 0: 2
	Console io.Writer
}

// Result is what a guest's run left.
type Result struct {
	Accel string        // "kvm" or "tcg"
	Took  time.Duration // from QEMU's start to its end
}

// ErrNoScriptEnd means the guest stopped without its script's end (the
// kernel panicked, the 9p root did not mount, QEMU was killed).
var ErrNoScriptEnd = errors.New("the guest stopped before its script ended")

// Run boots the guest, runs Script in it and returns once it has powered
// off (or ctx is done). The console (the kernel's, and the script's
// standard output and error) goes to Console.
func (b Boot) Run(ctx context.Context) (Result, error) {
	if err := os.WriteFile(filepath.Join(b.Out, "run.sh"), []byte(b.Script), 0o755); err != nil {
		return Result{}, err
	}
	accels := []string{"kvm", "tcg"}
	if a := os.Getenv(EnvAccel); a != "" {
		accels = []string{a}
	} else if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err != nil {
		accels = []string{"tcg"}
	} else {
		f.Close()
	}
	var last error
	for _, accel := range accels {
		var console bytes.Buffer
		w := io.Writer(&console)
		if b.Console != nil {
			w = io.MultiWriter(&console, b.Console)
		}
		start := time.Now()
		err := b.qemu(ctx, accel, w)
		res := Result{Accel: accel, Took: time.Since(start)}
		up := bytes.Contains(console.Bytes(), []byte("dcbtop-vm: up"))
		if !up && accel == "kvm" && ctx.Err() == nil {
			last = fmt.Errorf("kvm: %v", err)
			continue // nested KVM that does not start: TCG
		}
		if !bytes.Contains(console.Bytes(), []byte("dcbtop-vm: script exited")) {
			return res, fmt.Errorf("%w (%s, qemu: %v)", ErrNoScriptEnd, accel, err)
		}
		return res, nil
	}
	return Result{}, last
}

func (b Boot) qemu(ctx context.Context, accel string, console io.Writer) error {
	mem, cpus := b.Memory, b.CPUs
	if mem == 0 {
		mem = 1536
	}
	if cpus == 0 {
		cpus = 2
	}
	args := []string{"-nodefaults", "-no-reboot", "-display", "none", "-serial", "stdio",
		"-m", strconv.Itoa(mem), "-smp", strconv.Itoa(cpus),
		"-kernel", b.Kernel.Image, "-initrd", b.Initrd,
		"-append", "console=ttyS0 quiet loglevel=4 panic=-1 rdinit=/init",
		"-virtfs", "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap",
		"-virtfs", "local,path=" + b.Out + ",mount_tag=out,security_model=none,multidevs=remap",
	}
	if accel == "kvm" {
		args = append(args, "-accel", "kvm", "-cpu", "host")
	} else {
		args = append(args, "-accel", "tcg,thread=multi", "-cpu", "max")
	}
	// At the same priority as the rest of make test: niced, the guest
	// starved while the other packages compiled (a start under TCG took
	// 45 s and lldpd missed its 10 s).
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	cmd.Stdout, cmd.Stderr = console, console
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}
