package main

import (
	"fmt"
	"net"
	"net/netip"
)

// loopbackAddr resolves hostport and returns it as ip:port, refusing any
// address that is not loopback (a workplace rule: load is generated
// against this machine only). A host name is accepted only if every
// address it resolves to is loopback, and the resolved address is what is
// dialled, so a later lookup cannot point elsewhere.
func loopbackAddr(hostport string) (string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("-addr %q: %v", hostport, err)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		found, err := net.LookupIP(host)
		if err != nil {
			return "", fmt.Errorf("-addr %q: %v", hostport, err)
		}
		for _, f := range found {
			if ip, ok := netip.AddrFromSlice(f); ok {
				ips = append(ips, ip.Unmap())
			}
		}
	}
	if len(ips) == 0 {
		return "", fmt.Errorf("-addr %q: no address", hostport)
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return "", fmt.Errorf("-addr %q: %s is not a loopback address; tandem-load only loads this machine", hostport, ip)
		}
	}
	return net.JoinHostPort(ips[0].Unmap().String(), port), nil
}
