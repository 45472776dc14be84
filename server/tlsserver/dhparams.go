package tlsserver

import (
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
)

// tls-dh-params-file names the finite-field Diffie-Hellman parameters
// OpenSSL uses for the DHE suites. Go's crypto/tls implements no DHE
// suite (its key exchanges are ECDHE and RSA), so Tandem has nothing to
// give them to: the file is read and checked as Redis's OpenSSL would
// refuse it, so that a configuration Redis rejects is not accepted here,
// and is otherwise unused.

// minDHBits is OpenSSL's default security level 2: smaller parameters
// are refused with "dh key too small".
const minDHBits = 2048

// checkDHParams reads a PEM "DH PARAMETERS" file (PKCS#3 DHParameter,
// what `openssl dhparam` writes; OpenSSL 3 decodes only that type for
// Redis, not X9.42's "X9.42 DH PARAMETERS") and checks it.
func checkDHParams(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var b *pem.Block
	for rest := data; ; {
		if b, rest = pem.Decode(rest); b == nil || b.Type == "DH PARAMETERS" {
			break
		}
	}
	if b == nil {
		return fmt.Errorf("%s: failed to read DH params (no DH PARAMETERS PEM block)", file)
	}
	var params struct {
		P, G          *big.Int
		PrivateLength int `asn1:"optional"`
	}
	if rest, err := asn1.Unmarshal(b.Bytes, &params); err != nil || len(rest) != 0 {
		return fmt.Errorf("%s: failed to read DH params", file)
	}
	p, g := params.P, params.G
	if p.Sign() <= 0 || p.Bit(0) == 0 || g.Cmp(big.NewInt(1)) <= 0 || g.Cmp(new(big.Int).Sub(p, big.NewInt(1))) >= 0 {
		return errors.New(file + ": invalid DH parameters")
	}
	if p.BitLen() < minDHBits {
		return fmt.Errorf("%s: dh key too small (%d bits; at least %d)", file, p.BitLen(), minDHBits)
	}
	return nil
}
