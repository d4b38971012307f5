# SPDX-License-Identifier: Apache-2.0
# dcbtop: the two commands are `make demo` and `make test`.
# Everything else here is what they are made of.

GO        ?= go
# Go 1.27.3, whatever Go this machine has: the go command fetches that
# toolchain through the module proxy once (about 76 MB) and caches it. A
# machine runs its own Go and ignores go.mod's go line when its GOENV says
# GOTOOLCHAIN=local (as Debian-style images do), so the version is
# exported here for every recipe, test and script make starts.
export GOTOOLCHAIN := go1.27.3
BIN       ?= bin/dcbtop
PREFIX    ?= /usr/local
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.revision=$(REVISION)
FUZZTIME  ?= 20s
# How many tests of one package run at once. Most integration tests wait
# on peers and timers, not the CPU, and each has namespaces of its own, so
# many more than the two cores run at once (16: cmd/dcbtop 44 s instead
# of 57 s at 8, its three 35 s tests starting at once).
TEST_PARALLEL ?= 16
# How many packages test at once; go test's default is the cores (2).
TEST_PACKAGES ?= 4
# Builds for tests, vet and fuzzing leave the checkout's path out of what
# they compile, so the build cache serves every checkout of the same
# code (a worktree, a CI clone) instead of compiling it again for each
# directory: on these 2 cores the race build alone is about a minute.
# Vet, staticcheck and the tests' plain binaries build as the package
# does (CGO_ENABLED=0: dcbtop has no cgo), so their packages compile once
# for all of them.
TRIMPATH := -trimpath
# Debian packages the integration tests need: an independent LLDP peer
# (lldpd), an independent decoder (tshark), a recorder (tcpdump) and a
# terminal for end-to-end UI tests (tmux), the kernel's dcbnl.h header
# that pins dcbtop's DCB netlink constants (linux-libc-dev), and
# Prometheus's promtool, which checks and unit-tests the alerting rules in
# assets/prometheus (prometheus), and zsh, which runs the zsh completion in
# its test; systemd's systemd-analyze verifies the service unit and scores
# its hardening, and strace lists the system calls dcbtop makes, which the
# unit's SystemCallFilter must allow (assets/deb_test.go).
DEB_PKGS  := lldpd tshark tcpdump tmux linux-libc-dev iproute2 util-linux prometheus zsh systemd strace python3-debian
DEB_CMDS  := lldpd lldpcli tshark tcpdump tmux ip setpriv unshare nsenter promtool zsh systemd-analyze strace
DEB_FILES := /usr/include/linux/dcbnl.h /usr/lib/python3/dist-packages/debian/copyright.py
# The real-kernel tests (testbed/vm): Debian's kernel with its headers for
# testbed/kmod, QEMU, busybox for the initramfs, and the tools the guest's
# tests judge dcbtop with; installed without recommends (the kernel's
# would bring firmware). lldpad runs only in the guest: its host units are
# stopped and disabled after installing it. rping (rdmacm-utils) and rxe's
# user-space provider (ibverbs-providers) make rdma_cm's RoCE v2 packets,
# perftest's ib_send_bw verbs traffic.
VM_PKGS   := qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static gcc make kmod ethtool iproute2 lldpad rdmacm-utils ibverbs-providers perftest
VM_CMDS   := qemu-system-x86_64 busybox gcc make modprobe ethtool dcb lldpad rping ib_send_bw
VM_FILES  := /usr/share/doc/linux-image-amd64 /usr/share/doc/linux-headers-amd64 /usr/share/doc/ibverbs-providers

.PHONY: all build demo test unit vet lint fuzz fuzz-smoke bench install deb deps check clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/dcbtop

# The embedded default: dcbtop against its built-in simulated switch (a real
# DCBX peer playing a looping two-minute scenario). As root it runs in a
# network namespace of its own over a veth pair, captured through the normal
# live path; otherwise over an in-memory link. q quits and cleans up.
# Without a terminal it prints the indications as NDJSON instead.
demo: build
	./$(BIN) demo

# Installs the Debian packages the tests use when one is missing
# (as root: apt-get update once, then install; otherwise say what is missing).
deps:
	@missing=""; for c in $(DEB_CMDS) $(VM_CMDS); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	for f in $(DEB_FILES) $(VM_FILES); do [ -e $$f ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing$$missing (from: $(DEB_PKGS) $(VM_PKGS))"; \
	    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEB_PKGS) >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(VM_PKGS) >/dev/null; \
	    if [ -d /run/systemd/system ]; then systemctl disable --now lldpad.service lldpad.socket >/dev/null 2>&1 || true; fi; \
	  else \
	    echo "missing$$missing: run 'sudo make deps' (privileged tests will skip)"; \
	  fi; \
	fi

# Everything: static checks (beside the tests: they mostly wait), and unit
# and integration tests with the race detector. Privileged tests skip without root unless DCBTOP_REQUIRE_PRIV=1,
# which turns such a skip into a failure (CI sets it).
#
# As root the tests run as on a new machine, whatever ran here before: in
# a mount namespace of their own with an empty tmpfs on /run (no
# /run/netns, no sockets left by earlier runs) and a network namespace of
# their own with only loopback, after the modules are downloaded (the
# namespace has no network). /run/netns is deliberately not created here:
# the tests must pass on a machine that has none, and testbed's NewNS
# prepares it under a lock of its own while test binaries create
# namespaces at once (testbed/netnslock.go). DCBTOP_ISOLATED marks a run
# already inside such namespaces (nothing is wrapped twice by make test
# itself). Started by ../shared/tools/fresh-ci, which runs .ci/run inside
# such namespaces already, this nests one level deeper: harmless (a few
# milliseconds), and go test still starts from an empty /run.
# Without root nothing is wrapped (unshare needs root); privileged tests
# then skip with their reason.
test: deps
	@checks=$$(mktemp); \
	( $(MAKE) --no-print-directory vet lint >$$checks 2>&1; echo $$? >$$checks.rc ) & \
	if [ "$$(id -u)" = 0 ] && [ -z "$$DCBTOP_ISOLATED" ] && command -v unshare >/dev/null 2>&1; then \
	  $(GO) mod download && \
	  echo "go test $(TRIMPATH) -race -count=1 -p $(TEST_PACKAGES) -parallel $(TEST_PARALLEL) ./... (private /run and network namespace)" && \
	  DCBTOP_ISOLATED=1 unshare --mount --propagation private --net -- sh -ec '\
	    mount -t tmpfs -o mode=0755 dcbtop-test-run /run; mkdir -p /run/lock /run/user; \
	    ip link set lo up; \
	    GOFLAGS=-mod=mod GOPROXY=off exec testbed/gotest $(GO) $(TRIMPATH) -race -count=1 -p $(TEST_PACKAGES) -parallel $(TEST_PARALLEL)'; \
	else \
	  echo "go test $(TRIMPATH) -race -count=1 -p $(TEST_PACKAGES) -parallel $(TEST_PARALLEL) ./..."; \
	  testbed/gotest $(GO) $(TRIMPATH) -race -count=1 -p $(TEST_PACKAGES) -parallel $(TEST_PARALLEL); \
	fi; rc=$$?; wait; \
	echo "gofmt, go vet, staticcheck, deadcode (beside the tests):"; cat $$checks; crc=$$(cat $$checks.rc); rm -f $$checks $$checks.rc; \
	[ $$rc = 0 ] && [ "$$crc" = 0 ]

unit:
	$(GO) test -count=1 ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	CGO_ENABLED=0 $(GO) vet $(TRIMPATH) ./...
	CGO_ENABLED=0 $(GO) vet $(TRIMPATH) -tags realkernel ./testbed/realkernel

# staticcheck, and deadcode: no function that nothing reaches, from the
# programs or the tests (-test).
lint:
	CGO_ENABLED=0 $(GO) tool staticcheck ./...
	CGO_ENABLED=0 $(GO) tool staticcheck -tags realkernel ./testbed/realkernel
	@dead=$$(CGO_ENABLED=0 $(GO) tool deadcode -test ./...); \
	if [ -n "$$dead" ]; then echo "unreachable code (deadcode -test):"; echo "$$dead"; exit 1; fi

# Each fuzz target for a bounded time (FUZZTIME), each package's
# instrumented test binary built once (testbed/fuzz).
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) testbed/fuzz

# Every fuzz target for a second, as CI runs them (.ci/run): a broken
# invariant fails the day it breaks.
fuzz-smoke:
	@WORKERS=1 $(MAKE) --no-print-directory fuzz FUZZTIME=1s

# dcbtop against tcpdump, tshark and htop on this machine, each figure as
# a ratio to its reference measured in the same run (medians of RUNS runs,
# 5 by default): prints the table and writes bench/results.md. Needs root;
# installs the tools it compares with when missing. Never part of test.
bench:
	GO=$(GO) ./bench/run

# Installs the binary, the man page and shell completions, and grants the
# binary CAP_NET_RAW (capture) and CAP_NET_ADMIN (DCB netlink writes) so
# sudo is optional. DESTDIR installs (packaging) skip setcap.
install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/dcbtop
	install -D -m 0644 assets/dcbtop.8 $(DESTDIR)$(PREFIX)/share/man/man8/dcbtop.8
	install -D -m 0644 assets/completion/dcbtop.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dcbtop
	install -D -m 0644 assets/completion/_dcbtop $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_dcbtop
	@if [ -z "$(DESTDIR)" ]; then \
	  if command -v setcap >/dev/null 2>&1; then setcap cap_net_raw,cap_net_admin+ep $(PREFIX)/bin/dcbtop && echo "granted cap_net_raw,cap_net_admin to $(PREFIX)/bin/dcbtop"; \
	  else echo "setcap not found (apt-get install libcap2-bin): run dcbtop as root"; fi; \
	fi

# The Debian package, bin/dcbtop_VERSION_ARCH.deb, built by dpkg-deb
# alone (assets/deb/build): the binary (static: CGO_ENABLED=0, so it
# depends on nothing), the man page, completions, the read-only exporter
# as dcbtop.service with /etc/default/dcbtop, and the Prometheus, Grafana
# and Kubernetes files under /usr/share/dcbtop. VERSION comes from git
# (0~gitYYYYMMDD.N.HASH before the first tag, N the commit count), ARCH from GOARCH.
deb:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS) -s -w' -o bin/deb/dcbtop ./cmd/dcbtop
	GO=$(GO) assets/deb/build bin/deb/dcbtop bin

# The fast local loop: formatting, vet, and the tests without the race
# detector and without the integration harness (-short: no namespaces,
# no real peers). make test runs everything.
check: vet
	$(GO) test $(TRIMPATH) -short -count=1 ./...

clean:
	rm -rf bin
