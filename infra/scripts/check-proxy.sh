#!/usr/bin/env bash
# Runs infra/nginx/nginx.conf for real, without Docker, and checks what reaches the services.
# Needs nginx, node, curl and openssl on the PATH (Debian: apt-get install nginx-light).
# A copy of the config under a temporary prefix has its upstreams pointed at a local Node
# server that echoes request headers, and its listen ports moved to free ones; everything
# it starts is stopped on exit. Prints one line per check and "N passed, N failed".
set -euo pipefail

for tool in nginx node curl openssl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$tool is required" >&2; exit 1; }
done

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nginx_dir="$script_dir/../nginx"
work_dir="$(mktemp -d)"
echo_pid=""
nginx_started=false

cleanup() {
  if [[ "$nginx_started" == true && -s "$work_dir/nginx.pid" ]]; then
    local master; master="$(cat "$work_dir/nginx.pid")"
    kill -QUIT "$master" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$master" 2>/dev/null || break; sleep 0.1; done
  fi
  if [[ -n "$echo_pid" ]]; then kill "$echo_pid" 2>/dev/null || true; fi
  rm -rf "$work_dir"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

CERTS_DIR="$work_dir/certs" bash "$script_dir/make-dev-certs.sh" >/dev/null
certs="$work_dir/certs"
# A self-signed client certificate whose validity ended before it began: already expired.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$certs/expired.key" 2>/dev/null
openssl req -new -key "$certs/expired.key" -subj "/CN=expired-partner" -out "$work_dir/expired.csr"
openssl x509 -req -in "$work_dir/expired.csr" -signkey "$certs/expired.key" -days -1 -out "$certs/expired.pem" 2>/dev/null
# A partner certificate issued by a CA the proxy does not know (the dev CA is not configured
# for client verification): it must be forwarded just like a self-signed one.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$certs/ca-issued.key" 2>/dev/null
openssl req -new -key "$certs/ca-issued.key" -subj "/CN=ca-issued-partner" -out "$work_dir/ca-issued.csr"
openssl x509 -req -in "$work_dir/ca-issued.csr" -CA "$certs/ca.crt" -CAkey "$certs/ca.key" -set_serial 7 -days 30 \
  -out "$certs/ca-issued.pem" 2>/dev/null

# Echoes the request headers as JSON; /status/<code> answers with that status instead.
echo_port="$(free_port)"
node -e '
  const http = require("node:http");
  http.createServer((request, response) => {
    const status = Number(/^\/status\/(\d{3})$/.exec(request.url)?.[1] ?? 200);
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify({ url: request.url, headers: request.headers }));
  }).listen(Number(process.argv[1]), "127.0.0.1");
' "$echo_port" &
echo_pid=$!

identity_port="$(free_port)"
fx_port="$(free_port)"
cp "$nginx_dir"/*.conf "$work_dir/"
ln -s "$certs" "$work_dir/certs"
sed -i \
  -e "s|server identity:3001;|server 127.0.0.1:$echo_port;|" \
  -e "s|server fx:3002;|server 127.0.0.1:$echo_port;|" \
  -e "s|listen 8443 ssl;|listen 127.0.0.1:$identity_port ssl;|" \
  -e "s|listen 8444 ssl;|listen 127.0.0.1:$fx_port ssl;|" \
  -e "s|pid /tmp/nginx.pid;|pid $work_dir/nginx.pid;|" \
  -e "s|error_log /dev/stderr warn;|error_log $work_dir/error.log warn;|" \
  -e "s|access_log /dev/stdout proxy;|access_log $work_dir/access.log proxy;|" \
  "$work_dir/nginx.conf"
mkdir -p "$work_dir/logs"

nginx -p "$work_dir" -c "$work_dir/nginx.conf" -t 2>&1 | sed 's/^/nginx -t: /'
nginx -p "$work_dir" -c "$work_dir/nginx.conf"
nginx_started=true
for _ in $(seq 1 50); do
  curl -s -o /dev/null --cacert "$certs/ca.crt" "https://localhost:$fx_port/" && break
  sleep 0.1
done

passed=0
failed=0
check() {
  local name="$1" expected="$2" actual="$3"
  if [[ "$expected" == "$actual" ]]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; echo "     expected: $expected"; echo "     actual:   $actual"
  fi
}
# header NAME < echoed JSON: the header's value, or <absent>.
header() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s).headers[process.argv[1]];console.log(v===undefined?"<absent>":v)})' "$1"; }
tls() { curl -sS --cacert "$certs/ca.crt" "$@"; }

identity="https://localhost:$identity_port"
fx="https://localhost:$fx_port"
spoof=(-H "X-Client-Cert-Thumbprint: 0000000000000000000000000000000000000000000000000000000000000000"
       -H "X-Client-Cert: -----BEGIN%20CERTIFICATE-----spoofed" -H "X-Forwarded-For: 203.0.113.9")

with_cert="$(tls --cert "$certs/partner-client.pem" --key "$certs/partner-client.key" "${spoof[@]}" \
  -H "X-Correlation-ID: partner-req-42" "$identity/api/partner/v1/oauth/token")"
forwarded_pem="$(header x-client-cert <<<"$with_cert")"
check "identity, client certificate: X-Client-Cert is the URL-escaped PEM" \
  "$(cat "$certs/partner-client.pem")" "$(FORWARDED="$forwarded_pem" node -e 'console.log(decodeURIComponent(process.env.FORWARDED).trimEnd())')"
check "identity, client certificate: X-Client-Cert is escaped (no raw spaces or newlines)" \
  "yes" "$([[ "$forwarded_pem" == -----BEGIN%20CERTIFICATE-----%0A* && "$forwarded_pem" != *[[:space:]]* ]] && echo yes || echo no)"
check "identity, client certificate: SHA-256 over its DER is the certificate's thumbprint" \
  "$(cat "$certs/partner-client.sha256")" \
  "$(FORWARDED="$forwarded_pem" node -e 'const {X509Certificate,createHash}=require("node:crypto");console.log(createHash("sha256").update(new X509Certificate(decodeURIComponent(process.env.FORWARDED)).raw).digest("hex"))')"
check "identity, client certificate: spoofed X-Client-Cert-Thumbprint is dropped" "<absent>" "$(header x-client-cert-thumbprint <<<"$with_cert")"
check "identity: X-Forwarded-For is overwritten with the peer address" "127.0.0.1" "$(header x-forwarded-for <<<"$with_cert")"
check "identity: X-Forwarded-Proto is https" "https" "$(header x-forwarded-proto <<<"$with_cert")"
check "identity: a valid X-Correlation-ID passes through" "partner-req-42" "$(header x-correlation-id <<<"$with_cert")"

ca_issued="$(tls --cert "$certs/ca-issued.pem" --key "$certs/ca-issued.key" "$identity/api/partner/v1/oauth/token")"
check "identity, CA-issued client certificate: forwarded as well" \
  "$(cat "$certs/ca-issued.pem")" "$(FORWARDED="$(header x-client-cert <<<"$ca_issued")" node -e 'console.log(decodeURIComponent(process.env.FORWARDED).trimEnd())')"

without_cert="$(tls "${spoof[@]}" -H 'X-Correlation-ID: bad id"}' "$identity/health")"
check "identity, no client certificate: spoofed X-Client-Cert is dropped" "<absent>" "$(header x-client-cert <<<"$without_cert")"
check "identity, no client certificate: spoofed X-Client-Cert-Thumbprint is dropped" "<absent>" "$(header x-client-cert-thumbprint <<<"$without_cert")"
check "identity: an invalid X-Correlation-ID is replaced by a minted one" "yes" \
  "$([[ "$(header x-correlation-id <<<"$without_cert")" =~ ^[0-9a-f]{32}$ ]] && echo yes || echo no)"

fx_response="$(tls --cert "$certs/partner-client.pem" --key "$certs/partner-client.key" "${spoof[@]}" "$fx/api/v1/health")"
check "fx: no X-Client-Cert even when the client has a certificate and sends the header" "<absent>" "$(header x-client-cert <<<"$fx_response")"
check "fx: spoofed X-Client-Cert-Thumbprint is dropped" "<absent>" "$(header x-client-cert-thumbprint <<<"$fx_response")"
check "fx: X-Forwarded-For is overwritten" "127.0.0.1" "$(header x-forwarded-for <<<"$fx_response")"

expired="$(tls --cert "$certs/expired.pem" --key "$certs/expired.key" -w ' %{http_code} %{content_type}' "$identity/api/partner/v1/oauth/token")"
check "identity, expired client certificate: 401 problem+json from the proxy" "401 application/problem+json" "${expired##*\} }"
check "identity, expired client certificate: body names the reason" "yes" \
  "$([[ "$expired" == *'"code":"UNAUTHENTICATED"'*'certificate has expired'* ]] && echo yes || echo no)"

check "identity: a service's own 503 passes through untouched" "503" \
  "$(tls -o /dev/null -w '%{http_code}' "$identity/status/503")"
check "plain HTTP on the TLS port: 400 problem+json" "400 application/problem+json" \
  "$(curl -sS -o /dev/null -w '%{http_code} %{content_type}' "http://localhost:$identity_port/health")"

kill "$echo_pid"; wait "$echo_pid" 2>/dev/null || true; echo_pid=""
check "service down: 503 problem+json with Retry-After" "503 application/problem+json 5" \
  "$(tls -o /dev/null -w '%{http_code} %{content_type} %header{retry-after}' "$fx/api/v1/health")"

echo "proxy checks: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
