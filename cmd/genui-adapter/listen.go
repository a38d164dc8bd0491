package main

import (
	"net"
	"net/netip"
	"slices"
	"strings"
)

// sameListener says whether two listen addresses would bind the same port
// on overlapping addresses: the same port, and the same host, or a
// wildcard host ("", 0.0.0.0, ::) on either side, or localhost and a
// loopback address. Port 0 (any free port) and addresses that do not
// parse never clash here (net.Listen reports those).
func sameListener(a, b string) bool {
	ha, pa, err1 := net.SplitHostPort(a)
	hb, pb, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil {
		return false
	}
	na, err1 := net.LookupPort("tcp", pa)
	nb, err2 := net.LookupPort("tcp", pb)
	if err1 != nil || err2 != nil || na == 0 || na != nb {
		return false
	}
	hosts := func(h string) (wild bool, ips []netip.Addr) {
		if h == "" {
			return true, nil
		}
		if strings.EqualFold(h, "localhost") {
			return false, []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}
		}
		ip, err := netip.ParseAddr(h)
		if err != nil {
			return false, nil
		}
		return ip.IsUnspecified(), []netip.Addr{ip.Unmap()}
	}
	wa, ia := hosts(ha)
	wb, ib := hosts(hb)
	if wa || wb || strings.EqualFold(ha, hb) {
		return true
	}
	for _, x := range ia {
		if slices.Contains(ib, x) {
			return true
		}
	}
	return false
}
