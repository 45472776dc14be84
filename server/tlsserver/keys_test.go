package tlsserver

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
)

// The fixtures in testdata were written by OpenSSL 3 (testdata/gen.sh):
// each encrypted form of server.key decrypts, with the pass, to the same
// key; a wrong pass, a missing pass and the schemes not supported are
// refused with what they are.
func TestEncryptedKeys(t *testing.T) {
	want, err := tls.LoadX509KeyPair("testdata/server.crt", "testdata/server.key")
	if err != nil {
		t.Fatal(err)
	}
	wantDER, _ := x509.MarshalPKCS8PrivateKey(want.PrivateKey)
	for _, f := range []string{"server-pkcs8-aes256.key", "server-pkcs8-des3.key", "server-legacy-aes128.key"} {
		got, err := loadKeyPair("testdata/server.crt", "testdata/"+f, "tandem")
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if der, _ := x509.MarshalPKCS8PrivateKey(got.PrivateKey); string(der) != string(wantDER) {
			t.Errorf("%s: decrypted to another key", f)
		}
		if _, err := loadKeyPair("testdata/server.crt", "testdata/"+f, "wrong"); err == nil {
			t.Errorf("%s: loaded with a wrong pass", f)
		}
		if _, err := loadKeyPair("testdata/server.crt", "testdata/"+f, ""); !errors.Is(err, errNoPass) {
			t.Errorf("%s without a pass: %v", f, err)
		}
	}
	if _, err := loadKeyPair("testdata/server.crt", "testdata/server-pkcs8-aes256.key", "wrong"); !errors.Is(err, errBadDecrypt) {
		t.Errorf("PKCS#8 with a wrong pass: %v, want %v", err, errBadDecrypt)
	}
	// A pass for a key that is not encrypted is ignored, as by OpenSSL.
	if _, err := loadKeyPair("testdata/server.crt", "testdata/server.key", "tandem"); err != nil {
		t.Errorf("plain key with a pass: %v", err)
	}
	for f, why := range map[string]string{"server-pkcs8-scrypt.key": "key derivation", "server-pkcs8-pbe.key": "only PBES2"} {
		if _, err := loadKeyPair("testdata/server.crt", "testdata/"+f, "tandem"); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want an error saying %q", f, err, why)
		}
	}
}

// FuzzDecryptKeyPEM: no key file, however damaged, panics the loader:
// every PEM block is parsed as PBES2 and, when its iteration count is
// small enough for a fuzzer's pace, decrypted; the whole file goes
// through decryptKeyPEM (the legacy form too) when it asks for no more.
func FuzzDecryptKeyPEM(f *testing.F) {
	for _, name := range []string{"server-pkcs8-aes256.key", "server-pkcs8-des3.key", "server-legacy-aes128.key", "server-pkcs8-scrypt.key", "server.key"} {
		f.Add(mustRead(f, "testdata/"+name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cheap := true
		for rest := data; ; {
			var b *pem.Block
			if b, rest = pem.Decode(rest); b == nil {
				break
			}
			if k, err := parsePBES2(b.Bytes); err == nil {
				if k.iterations > 4096 {
					cheap = false
					continue
				}
				if der, err := k.decrypt([]byte("tandem")); err == nil {
					if _, err := x509.ParsePKCS8PrivateKey(der); err != nil {
						t.Fatalf("decrypted to a key that does not parse: %v", err)
					}
				}
			}
		}
		if cheap {
			_, _ = decryptKeyPEM(data, "tandem")
		}
	})
}

func TestDHParams(t *testing.T) {
	if err := checkDHParams("testdata/dh2048.pem"); err != nil {
		t.Errorf("ffdhe2048: %v", err)
	}
	for f, why := range map[string]string{"dh1024.pem": "dh key too small", "dh-x942.pem": "failed to read DH params",
		"server.crt": "failed to read DH params", "missing.pem": "no such file"} {
		if err := checkDHParams("testdata/" + f); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want an error saying %q", f, err, why)
		}
	}
}
