module dcbtop

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/gopacket/gopacket v1.7.7 // indirect
	github.com/mdlayher/ethernet v0.0.0-20220221185849-529eae5b6118 // indirect
	github.com/mdlayher/lldp v0.0.0-20150915211757-afd9f83164c5 // indirect
	github.com/mdlayher/netlink v1.11.2 // indirect
	github.com/mdlayher/packet v1.2.0 // indirect
	github.com/mdlayher/socket v0.7.0 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/vishvananda/netlink v1.3.1 // indirect
	github.com/vishvananda/netns v0.0.5 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
