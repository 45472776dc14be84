#!/bin/sh
# Regenerates the OpenSSL-made fixtures of keys_test.go, dhparams_test.go
# and differential_test.go: a CA, a server certificate for 127.0.0.1 and
# localhost and a client certificate it signed (valid 100 years), the
# server key in every encrypted form the tests read (pass "tandem"), and
# DH parameter files. Run it here; nothing in the tests calls openssl.
set -e
days=36500
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -sha256 -days $days -subj /CN=tandem-test-ca -out ca.crt
openssl ecparam -name prime256v1 -genkey -noout | openssl pkey -out server.key
openssl req -new -key server.key -subj /CN=localhost -out server.csr
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days $days -sha256 -extfile server.ext -out server.crt
openssl ecparam -name prime256v1 -genkey -noout | openssl pkey -out client.key
openssl req -new -key client.key -subj /CN=tandem-test-client -out client.csr
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days $days -sha256 -extfile client.ext -out client.crt
rm -f server.csr client.csr server.ext client.ext ca.srl ca.key
# PKCS#8 PBES2, OpenSSL 3's defaults: PBKDF2-HMAC-SHA256, AES-256-CBC.
openssl pkey -in server.key -aes256 -passout pass:tandem -out server-pkcs8-aes256.key
# PKCS#8 PBES2 with PBKDF2-HMAC-SHA1 and DES-EDE3-CBC.
openssl pkcs8 -topk8 -in server.key -v2 des3 -v2prf hmacWithSHA1 -passout pass:tandem -out server-pkcs8-des3.key
# PKCS#8 with scrypt, and with a PKCS#12 PBE: refused.
openssl pkcs8 -topk8 -in server.key -scrypt -passout pass:tandem -out server-pkcs8-scrypt.key
openssl pkcs8 -topk8 -in server.key -v1 PBE-SHA1-3DES -passout pass:tandem -out server-pkcs8-pbe.key
# The legacy PEM encryption (Proc-Type, DEK-Info).
openssl ec -in server.key -aes128 -passout pass:tandem -out server-legacy-aes128.key 2>/dev/null
# The client key, encrypted too (tls-client-key-file-pass).
openssl pkey -in client.key -aes128 -passout pass:tandem -out client-pkcs8-aes128.key
# DH parameters: RFC 7919's ffdhe2048 (accepted), 1024 bits (too small
# for OpenSSL's security level), and X9.42's form (OpenSSL 3 does not
# decode it for Redis).
openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out dh2048.pem
openssl dhparam -out dh1024.pem 1024 2>/dev/null
openssl dhparam -dsaparam -out dh-x942.pem 2048 2>/dev/null
