#!/bin/sh
# A realistic mix from a targets file: 10 virtual users each log in, list,
# create and read back, again and again (--order session), keeping their
# session cookie (--cookies). The server counts what it received; the script
# prints its counts under rafale's report, then shows the same visit without
# --cookies (every request after the login is refused 401: 'bad status').
#
# usage: examples/workloads/run.sh   (needs python3; port 18080 free)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
make -s -C "$root" rafale

python3 "$here/server.py" 18080 > /tmp/rafale-workloads-server.txt &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do
    grep -q listening /tmp/rafale-workloads-server.txt 2>/dev/null && break
    sleep 0.2
done

echo '$ rafale --targets api.targets --order session --cookies -c 10 -n 4000'
"$root/rafale" --targets "$here/api.targets" --order session --cookies -c 10 -n 4000
echo
echo 'The server counted:'
python3 -c 'import json, urllib.request
print(json.dumps(json.load(urllib.request.urlopen("http://127.0.0.1:18080/_counts")), indent=1, sort_keys=True))'
echo
echo '$ rafale --targets api.targets --order session -c 10 -n 400     # no --cookies'
"$root/rafale" --targets "$here/api.targets" --order session -c 10 -n 400 | grep -E "^ *(Bad status|Status|[0-9]{3} )|login|list|create|show" || true
echo
echo '$ rafale --targets api-token.targets --order session -c 10 -n 4000   # a bearer token, checks, think time'
"$root/rafale" --targets "$here/api-token.targets" --order session -c 10 -n 4000 | sed -n '/^Checks/,/^$/p'
