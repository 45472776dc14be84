package benchkit

import (
	"fmt"
	"net"
	"net/netip"
)

// LoopbackAddr resolves hostport and returns it as ip:port, refusing any
// address that is not loopback (a workplace rule: load is generated
// against this machine only). A host name is accepted only if every
// address it resolves to is loopback, and the resolved address is what is
// dialled, so a later lookup cannot point elsewhere.
func LoopbackAddr(hostport string) (string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("address %q: %v", hostport, err)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		found, err := net.LookupIP(host)
		if err != nil {
			return "", fmt.Errorf("address %q: %v", hostport, err)
		}
		for _, f := range found {
			if ip, ok := netip.AddrFromSlice(f); ok {
				ips = append(ips, ip.Unmap())
			}
		}
	}
	if len(ips) == 0 {
		return "", fmt.Errorf("address %q: no address", hostport)
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return "", fmt.Errorf("address %q: %s is not a loopback address; the benchmarks only load this machine", hostport, ip)
		}
	}
	return net.JoinHostPort(ips[0].Unmap().String(), port), nil
}
