package nlclient

import "testing"

func TestValidIfname(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"eth0", true},
		{"x", true},
		{"fifteen-chars-x", true},
		{"sixteen-chars-xx", false},
		{"", false},
		{"a\x00b", false},
		{"eth0\x00", false},
		{"enp1s0f0np0.100", true},
		{"with space", true}, // not a name the kernel gives, but one it can be asked about
	}
	for _, tt := range tests {
		if got := ValidIfname(tt.name); got != tt.want {
			t.Errorf("ValidIfname(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCString(t *testing.T) {
	tests := []struct {
		b    []byte
		want string
	}{
		{[]byte("eth0\x00"), "eth0"},
		{[]byte("eth0\x00\x00\x00\x00"), "eth0"},
		{[]byte("mlx5_0"), "mlx5_0"},
		{[]byte("ab\x00cd\x00"), "ab"},
		{[]byte{0}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := CString(tt.b); got != tt.want {
			t.Errorf("CString(%q) = %q, want %q", tt.b, got, tt.want)
		}
	}
}
