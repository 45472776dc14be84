package tlsserver

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"os"
)

// Private keys protected by a pass (tls-key-file-pass,
// tls-client-key-file-pass), in the two PEM forms OpenSSL writes:
//
//   - PKCS#8 "ENCRYPTED PRIVATE KEY" with PBES2 (RFC 8018): PBKDF2 with
//     HMAC-SHA1, -SHA224, -SHA256 (OpenSSL 3's default), -SHA384 or
//     -SHA512, and AES-128/192/256-CBC or DES-EDE3-CBC. That is what
//     `openssl genpkey -aes256`, `openssl pkey -aes256` and OpenSSL 3's
//     `openssl rsa -aes256` write. scrypt and the PKCS#12 PBE schemes
//     (`openssl pkcs8 -v1 ...`) are refused, with their name.
//   - the legacy PEM encryption, "Proc-Type: 4,ENCRYPTED" with DEK-Info
//     (`openssl rsa -traditional -aes256`, OpenSSL 1.x's default), which
//     Go's x509 still decrypts.
//
// Go's crypto/x509 has no PKCS#8 decryption and golang.org/x/crypto none
// either; PBES2 is a key derivation and a block cipher mode, both in the
// standard library, so it is done here rather than with a dependency.
// As with OpenSSL, a pass given for a key that is not encrypted is
// ignored.

// loadKeyPair is tls.LoadX509KeyPair with a pass for an encrypted key.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	if keyPEM, err = decryptKeyPEM(keyPEM, pass); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// errNoPass: an encrypted key and no pass to decrypt it with.
var errNoPass = errors.New("the private key is encrypted and no pass is set (tls-key-file-pass)")

// decryptKeyPEM returns keyPEM with its first private key decrypted, as
// an unencrypted PEM block; keyPEM itself when that key is not encrypted.
func decryptKeyPEM(keyPEM []byte, pass string) ([]byte, error) {
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return keyPEM, nil // no key at all: tls.X509KeyPair says so
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			if pass == "" {
				return nil, errNoPass
			}
			der, err := decryptPKCS8(b.Bytes, []byte(pass))
			if err != nil {
				return nil, err
			}
			return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
		case x509.IsEncryptedPEMBlock(b): //nolint:staticcheck // the legacy form, which OpenSSL still writes
			if pass == "" {
				return nil, errNoPass
			}
			der, err := x509.DecryptPEMBlock(b, []byte(pass)) //nolint:staticcheck // no integrity: a wrong pass may decrypt to garbage, which parsing then refuses
			if err != nil {
				return nil, fmt.Errorf("decrypting the private key: %w", err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: b.Type, Bytes: der}), nil
		case b.Type == "PRIVATE KEY" || b.Type == "RSA PRIVATE KEY" || b.Type == "EC PRIVATE KEY":
			return keyPEM, nil
		}
	}
}

// errBadDecrypt: the pass is wrong (or the data damaged), OpenSSL's "bad
// decrypt".
var errBadDecrypt = errors.New("bad decrypt: wrong pass for the private key")

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

// pbkdf2PRFs are the HMACs PBKDF2-params may name (RFC 8018 B.1).
var pbkdf2PRFs = []struct {
	oid asn1.ObjectIdentifier
	h   func() hash.Hash
}{
	{oidHMACSHA1, sha1.New},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}, sha256.New224},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}, sha256.New},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}, sha512.New384},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}, sha512.New},
}

// The ASN.1 of RFC 5958 (EncryptedPrivateKeyInfo) and RFC 8018 (PBES2).
type (
	encryptedPrivateKeyInfo struct {
		Algorithm algorithmIdentifier
		Data      []byte
	}
	algorithmIdentifier struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.RawValue `asn1:"optional"`
	}
	pbes2Params struct {
		KeyDerivationFunc algorithmIdentifier
		EncryptionScheme  algorithmIdentifier
	}
	pbkdf2Params struct {
		Salt       []byte
		Iterations int
		KeyLength  int                 `asn1:"optional"`
		PRF        algorithmIdentifier `asn1:"optional"`
	}
)

// maxPBKDF2Iterations bounds the work a key file can ask for: OpenSSL
// writes 2048, current advice is some hundred thousand; a damaged or
// hostile file could ask for 2^31, minutes of a core.
const maxPBKDF2Iterations = 1_000_000

// pbes2Key is a parsed PBES2 EncryptedPrivateKeyInfo, ready to decrypt.
type pbes2Key struct {
	prf        func() hash.Hash
	salt       []byte
	iterations int
	keyLen     int
	newCipher  func([]byte) (cipher.Block, error)
	iv, data   []byte
}

// decryptPKCS8 decrypts an EncryptedPrivateKeyInfo into PKCS#8 DER.
func decryptPKCS8(der, pass []byte) ([]byte, error) {
	k, err := parsePBES2(der)
	if err != nil {
		return nil, err
	}
	return k.decrypt(pass)
}

// parsePBES2 parses an EncryptedPrivateKeyInfo and checks that its
// scheme is one this file supports.
func parsePBES2(der []byte) (*pbes2Key, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) != 0 {
		return nil, errors.New("the encrypted private key is not PKCS#8 EncryptedPrivateKeyInfo")
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("the private key is encrypted with %v: only PBES2 (PBKDF2 with AES or 3DES) is supported", info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, errors.New("bad PBES2 parameters in the private key")
	}
	if !params.KeyDerivationFunc.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("the private key's key derivation %v is not supported: only PBKDF2", params.KeyDerivationFunc.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &kdf); err != nil {
		return nil, errors.New("bad PBKDF2 parameters in the private key")
	}
	if kdf.Iterations < 1 || kdf.Iterations > maxPBKDF2Iterations {
		return nil, fmt.Errorf("PBKDF2 iteration count %d out of range (1 to %d)", kdf.Iterations, maxPBKDF2Iterations)
	}
	k := &pbes2Key{prf: sha1.New, salt: kdf.Salt, iterations: kdf.Iterations, data: info.Data} // SHA-1: RFC 8018's default
	if len(kdf.PRF.Algorithm) > 0 {
		k.prf = nil
		for _, p := range pbkdf2PRFs {
			if p.oid.Equal(kdf.PRF.Algorithm) {
				k.prf = p.h
			}
		}
		if k.prf == nil {
			return nil, fmt.Errorf("the private key's PBKDF2 PRF %v is not supported", kdf.PRF.Algorithm)
		}
	}
	switch scheme := params.EncryptionScheme.Algorithm; {
	case scheme.Equal(oidAES128CBC):
		k.keyLen, k.newCipher = 16, aes.NewCipher
	case scheme.Equal(oidAES192CBC):
		k.keyLen, k.newCipher = 24, aes.NewCipher
	case scheme.Equal(oidAES256CBC):
		k.keyLen, k.newCipher = 32, aes.NewCipher
	case scheme.Equal(oidDESEDE3CBC):
		k.keyLen, k.newCipher = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("the private key's cipher %v is not supported: AES-CBC or DES-EDE3-CBC", scheme)
	}
	if kdf.KeyLength != 0 && kdf.KeyLength != k.keyLen {
		return nil, errors.New("the PBKDF2 key length does not match the cipher")
	}
	if _, err := asn1.Unmarshal(params.EncryptionScheme.Parameters.FullBytes, &k.iv); err != nil {
		return nil, errors.New("bad cipher IV in the private key")
	}
	return k, nil
}

// decrypt derives the key from pass and decrypts k into PKCS#8 DER.
func (k *pbes2Key) decrypt(pass []byte) ([]byte, error) {
	key, err := pbkdf2.Key(k.prf, string(pass), k.salt, k.iterations, k.keyLen)
	if err != nil {
		return nil, err
	}
	block, err := k.newCipher(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(k.iv) != bs || len(k.data) == 0 || len(k.data)%bs != 0 {
		return nil, errors.New("bad encrypted private key length")
	}
	plain := make([]byte, len(k.data))
	cipher.NewCBCDecrypter(block, k.iv).CryptBlocks(plain, k.data)
	// PKCS#7 padding; a wrong pass almost always breaks it, and parsing
	// below catches the rest.
	n := int(plain[len(plain)-1])
	if n == 0 || n > bs || !bytes.Equal(plain[len(plain)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, errBadDecrypt
	}
	plain = plain[:len(plain)-n]
	if _, err := x509.ParsePKCS8PrivateKey(plain); err != nil {
		return nil, errBadDecrypt
	}
	return plain, nil
}
