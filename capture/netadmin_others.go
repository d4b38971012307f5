// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package capture

import "os"

// NetAdmin reports whether this process may write DCB parameters: root.
func NetAdmin() bool { return os.Geteuid() == 0 }
