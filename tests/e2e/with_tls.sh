#!/bin/sh
# with_tls.sh COMMAND...: run COMMAND with a certificate authority and a server certificate made
# for it with openssl (P-256, for 127.0.0.1 and localhost, valid two days), in a folder removed
# afterwards: MCP_TLS_CERT and MCP_TLS_KEY name the server's certificate and key (the tests pass
# them to --tls-cert and --tls-key), NODE_EXTRA_CA_CERTS the authority, which Node then trusts.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
(
  cd "$dir"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
    -days 2 -subj /CN=mcpidl-test-ca
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr \
    -subj /CN=localhost
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > ext.cnf
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf \
    -out server.pem
) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
export MCP_TLS_CERT="$dir/server.pem" MCP_TLS_KEY="$dir/server.key" NODE_EXTRA_CA_CERTS="$dir/ca.pem"
"$@"
