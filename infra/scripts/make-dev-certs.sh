#!/usr/bin/env bash
# Development certificates for the docker-compose stack (infra/certs/, gitignored):
#   ca.crt / ca.key                    dev CA that signs the proxy's server certificate
#   server.crt / server.key            TLS certificate of the nginx proxy for localhost / 127.0.0.1
#   partner-client.pem / .key          a sample partner client certificate, self-signed (CN=partner-demo)
#   partner-client.sha256              its SHA-256 thumbprint (hex), the digest identity binds tokens to
# Existing files are kept; --force replaces all of them. CERTS_DIR overrides the output folder.
# Uses only `openssl req` / `openssl x509 -req` with extension files so that OpenSSL 1.1, 3.x
# and LibreSSL (macOS) all work.
set -euo pipefail

usage() { echo "usage: $0 [--force]" >&2; exit 2; }

force=false
for argument in "$@"; do
  case "$argument" in
    --force) force=true ;;
    -h | --help) usage ;;
    *) echo "unknown argument: $argument" >&2; usage ;;
  esac
done

command -v openssl >/dev/null 2>&1 || { echo "openssl is required" >&2; exit 1; }

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
certs_dir="${CERTS_DIR:-$script_dir/../certs}"
mkdir -p "$certs_dir"
certs_dir="$(cd "$certs_dir" && pwd)"

work_dir="$(mktemp -d)"
trap 'rm -rf "$work_dir"' EXIT

# Private keys stay readable by their owner only; the proxy's key is world-readable because the
# nginx container reads it through a bind mount under whatever uid the engine maps root to.
umask 077

new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
random_serial() { echo "0x$(openssl rand -hex 16)"; }
present() { local file; for file in "$@"; do [[ -s "$certs_dir/$file" ]] || return 1; done; }

if [[ "$force" == true ]]; then
  rm -f "$certs_dir"/{ca.crt,ca.key,server.crt,server.key,partner-client.pem,partner-client.key,partner-client.sha256}
fi

ca_created=false
if present ca.crt ca.key; then
  echo "keeping existing dev CA ($certs_dir/ca.crt)"
else
  new_key "$work_dir/ca.key"
  openssl req -new -key "$work_dir/ca.key" -subj "/O=partner-services/CN=partner-services dev CA" -out "$work_dir/ca.csr"
  cat >"$work_dir/ca.ext" <<'EOF'
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
  openssl x509 -req -in "$work_dir/ca.csr" -signkey "$work_dir/ca.key" -sha256 -days 3650 \
    -set_serial "$(random_serial)" -extfile "$work_dir/ca.ext" -out "$work_dir/ca.crt" 2>/dev/null
  mv "$work_dir/ca.key" "$certs_dir/ca.key"
  mv "$work_dir/ca.crt" "$certs_dir/ca.crt"
  ca_created=true
  echo "created dev CA $certs_dir/ca.crt"
fi

# A server certificate signed by a previous CA would not verify against a new one.
if present server.crt server.key && [[ "$ca_created" == false ]]; then
  echo "keeping existing server certificate ($certs_dir/server.crt)"
else
  new_key "$work_dir/server.key"
  openssl req -new -key "$work_dir/server.key" -subj "/O=partner-services/CN=localhost" -out "$work_dir/server.csr"
  cat >"$work_dir/server.ext" <<'EOF'
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
  openssl x509 -req -in "$work_dir/server.csr" -CA "$certs_dir/ca.crt" -CAkey "$certs_dir/ca.key" -sha256 -days 365 \
    -set_serial "$(random_serial)" -extfile "$work_dir/server.ext" -out "$work_dir/server.crt" 2>/dev/null
  chmod 644 "$work_dir/server.key"
  mv "$work_dir/server.key" "$certs_dir/server.key"
  mv "$work_dir/server.crt" "$certs_dir/server.crt"
  echo "created server certificate $certs_dir/server.crt (DNS:localhost, IP:127.0.0.1)"
fi

if present partner-client.pem partner-client.key; then
  echo "keeping existing partner client certificate ($certs_dir/partner-client.pem)"
else
  new_key "$work_dir/partner-client.key"
  openssl req -new -key "$work_dir/partner-client.key" -subj "/O=Partner Demo/CN=partner-demo" -out "$work_dir/partner-client.csr"
  cat >"$work_dir/partner-client.ext" <<'EOF'
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
EOF
  openssl x509 -req -in "$work_dir/partner-client.csr" -signkey "$work_dir/partner-client.key" -sha256 -days 365 \
    -set_serial "$(random_serial)" -extfile "$work_dir/partner-client.ext" -out "$work_dir/partner-client.pem" 2>/dev/null
  mv "$work_dir/partner-client.key" "$certs_dir/partner-client.key"
  mv "$work_dir/partner-client.pem" "$certs_dir/partner-client.pem"
  echo "created self-signed partner client certificate $certs_dir/partner-client.pem (CN=partner-demo)"
fi

# RFC 8705 x5t#S256 is SHA-256 over the DER certificate; the spec's certificateThumbprint is hex.
openssl x509 -in "$certs_dir/partner-client.pem" -outform DER | openssl dgst -sha256 -r | cut -d' ' -f1 \
  >"$certs_dir/partner-client.sha256"
chmod 644 "$certs_dir"/*.crt "$certs_dir/partner-client.pem" "$certs_dir/partner-client.sha256"
echo "partner client certificate SHA-256 thumbprint: $(cat "$certs_dir/partner-client.sha256")"
