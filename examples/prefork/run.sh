#!/bin/sh
# Prefork servers, measured fairly: gunicorn -w 4 (sync workers), Apache
# prefork + mod_php, and nginx + PHP-FPM (nginx daemonizing as it does by
# default, php-fpm calling setsid), all from Debian's packages, serving the
# same "Hello, world" page. rafale compare runs each in a cgroup of its own,
# so every process is measured (memory as if alone and PSS, per process) and stopped.
#
# usage: examples/prefork/run.sh   (installs the servers as root)
# Writes prefork.html and prefork.json in the current directory.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(pwd)

sh "$root/scripts/deps.sh" gunicorn apache2 libapache2-mod-php php-fpm nginx-light python3 make gcc libssl-dev \
    libjansson-dev libnghttp2-dev
make -s -C "$root" rafale
fpm=$(ls /usr/sbin/php-fpm* | head -n 1)
php_mod=$(ls /usr/lib/apache2/modules/libphp*.so | head -n 1)

dir=$(mktemp -d /tmp/prefork.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
mkdir "$dir/www"
cp "$here/hello.php" "$dir/www/"
chmod -R a+rX "$dir/www"
# Three free ports, one per server.
set -- $(python3 -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
p_gunicorn=$1 p_apache=$2 p_nginx=$3
m=/usr/lib/apache2/modules

cat > "$dir/apache.conf" <<CONF
ServerRoot $dir
ServerName localhost
Listen 127.0.0.1:$p_apache
PidFile $dir/apache.pid
ErrorLog $dir/apache.err
LogLevel warn
User www-data
Group www-data
LoadModule mpm_prefork_module $m/mod_mpm_prefork.so
LoadModule authz_core_module $m/mod_authz_core.so
LoadModule mime_module $m/mod_mime.so
LoadModule php_module $php_mod
TypesConfig /etc/mime.types
DocumentRoot $dir/www
KeepAlive On
MaxKeepAliveRequests 0
<FilesMatch "\.php\$">
    SetHandler application/x-httpd-php
</FilesMatch>
CONF

cat > "$dir/fpm.conf" <<CONF
[global]
pid = $dir/fpm.pid
error_log = $dir/fpm.err
[www]
user = www-data
group = www-data
listen = $dir/fpm.sock
listen.mode = 0666
pm = static
pm.max_children = 4
CONF

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
        root $dir/www;
        location ~ \.php\$ {
            fastcgi_pass unix:$dir/fpm.sock;
            fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
            fastcgi_param REQUEST_METHOD \$request_method;
            fastcgi_param QUERY_STRING \$query_string;
            fastcgi_param SERVER_PROTOCOL \$server_protocol;
        }
    }
}
CONF

cat > "$dir/plan.conf" <<CONF
# repeat = auto: at least 5 rounds, then more until every verdict is decided
# (same, slower or faster by its interval) or 15 rounds, the first one left
# out as warm-up; pin = auto (the default) splits the CPUs
# between the servers and rafale; calibrate = yes carries this machine's
# reference, to read the result beside one from another machine.
[settings]
repeat = auto
max-repeat = 15
discard = 1
calibrate = yes
warmup = 1s
connections = 20
requests = 10000

[server gunicorn -w 4]
start = exec gunicorn -w 4 -b 127.0.0.1:$p_gunicorn --chdir $here app:app
url = http://127.0.0.1:$p_gunicorn
ready = /hello.php
version = gunicorn --version

[server Apache prefork + mod_php]
start = exec apache2 -f $dir/apache.conf -DFOREGROUND
url = http://127.0.0.1:$p_apache
ready = /hello.php
version = apache2 -v

# Two programs in one start command (run by /bin/sh -c): php-fpm, then nginx,
# which daemonizes, so the command returns at once: the cgroup follows both.
[server nginx + php-fpm]
start = $fpm -F -y $dir/fpm.conf & nginx -c $dir/nginx.conf -p $dir
url = http://127.0.0.1:$p_nginx
ready = /hello.php
version = nginx -v

[workload hello keep-alive]
path = /hello.php

[workload hello new connection]
path = /hello.php
close = yes
CONF
"$root/rafale" compare --html "$out/prefork.html" --json "$out/prefork.json" "$dir/plan.conf"
echo
echo "left running after the compare (should be none):"
ps -eo pid,args | grep -E "gunicorn|apache2 -f $dir|php-fpm|nginx -c $dir" | grep -v grep || echo "  none"
