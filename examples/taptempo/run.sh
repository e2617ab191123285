#!/bin/sh
# The "TapTempo du Web" contest, made fair: the same "redirect to
# http://example.com" endpoint on nginx, lighttpd, a Python standard-library
# server and rafale serve, measured by `rafale compare` on one machine, the
# servers pinned to CPU 0 and rafale to CPU 1, keep-alive and a new connection
# per request, 3 interleaved repetitions each.
#
# usage: examples/taptempo/run.sh   (installs nginx-light, lighttpd, python3 as root)
# Writes taptempo.html and taptempo.json in the current directory.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(pwd)

sh "$root/scripts/deps.sh" nginx-light lighttpd python3 make gcc libssl-dev libjansson-dev libnghttp2-dev
make -s -C "$root" rafale

dir=$(mktemp -d /tmp/taptempo.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# Four free ports, one per server.
set -- $(python3 -c 'import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
p_nginx=$1 p_lighttpd=$2 p_python=$3 p_rafale=$4

cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx.err warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$p_nginx;
        location = /redirect { return 302 http://example.com; }
    }
}
CONF
cat > "$dir/lighttpd.conf" <<CONF
server.document-root = "$dir"
server.bind = "127.0.0.1"
server.port = $p_lighttpd
server.modules = ("mod_redirect")
server.errorlog = "$dir/lighttpd.err"
server.max-keep-alive-requests = 1000000
url.redirect = ("^/redirect" => "http://example.com")
url.redirect-code = 302
CONF
cat > "$dir/plan.conf" <<CONF
[settings]
repeat = 3
warmup = 1s
server-cpus = 0
client-cpus = 1

[server nginx]
start = exec nginx -c $dir/nginx.conf -p $dir -g 'daemon off;'
url = http://127.0.0.1:$p_nginx

[server lighttpd]
start = exec lighttpd -D -f $dir/lighttpd.conf
url = http://127.0.0.1:$p_lighttpd

[server python]
start = exec python3 $here/redirect.py $p_python
url = http://127.0.0.1:$p_python

[server rafale serve]
start = exec $root/rafale serve --listen 127.0.0.1:$p_rafale -t 1
url = http://127.0.0.1:$p_rafale

[workload redirect keep-alive]
path = /redirect
connections = 50
duration = 3s

[workload redirect close]
path = /redirect
connections = 50
duration = 3s
close = yes
CONF
"$root/rafale" compare --html "$out/taptempo.html" --json "$out/taptempo.json" "$dir/plan.conf"
