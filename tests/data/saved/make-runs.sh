#!/bin/sh
# Makes the saved runs of tests/data/saved/ afresh with the rafale given
# (short runs on 127.0.0.1: half a minute in all), in the current folder.
# Their figures differ every time: after it, make the expected outputs
# again with the same binary (tests/saved_runs.py --write RAFALE), and
# commit both. usage: cd tests/data/saved && sh make-runs.sh ../../../rafale
set -e
R=$(realpath "${1:?usage: make-runs.sh RAFALE}")
T=$(mktemp -d)
trap 'kill $SERVE 2>/dev/null; rm -rf "$T"' EXIT
"$R" serve --listen 127.0.0.1:0 -t 1 --http3 >"$T/serve.out" 2>/dev/null &
SERVE=$!
while ! grep -q listening "$T/serve.out"; do sleep 0.1; done
A=$(head -1 "$T/serve.out" | cut -d' ' -f3)
run() { "$R" -q -t 1 "$@" >/dev/null; }
run -c 4 -n 300 --json ka.json "http://$A/" "http://$A/json" "http://$A/status/404"
run -c 2 -n 150 --close --json close.json "http://$A/"
run -c 4 -R 200 -d 1s --json rate.json "http://$A/delay/5"
run -c 2 --http2 --streams 4 -n 300 --json h2.json "http://$A/"
run -c 2 --http3 --insecure --streams 4 -n 300 --json h3.json "https://$A/"
run -c 2 -n 300 --monitor $SERVE --json mon.json "http://$A/json"
run -c 4 --stages 1s:100,1s:200 --json stages.json "http://$A/"
run -c 4 -d 1s --timeout 2s --json errs.json "http://$A/delay/100" "http://127.0.0.1:1/" || true
# Checks, a variable, names, an SLO.
sed "s/ADDR/$A/" >"$T/targets" <<'T'
# name: json
# check: status == 200
# check: json $.server == "rafale"
# extract: v = header Content-Type
GET http://ADDR/json

# name: failing
# check: status == 200
GET http://ADDR/status/503

# name: uses var
GET http://ADDR/?v={{var v}}
T
run -c 2 -n 150 --targets "$T/targets" --slo 'p99<100ms,errors<1%' --json checks.json
# Two runs of one workload, of five seconds each (diff reads their middle
# seconds), the second slower.
run -c 2 -R 30 -d 5s --json base.json "http://$A/delay/1"
run -c 2 -R 30 -d 5s --json slower.json "http://$A/delay/3"
# This machine's reference (measured once into a HOME of its own, about
# ten seconds), and a copy of that run said to come from another machine.
HOME=$T run -c 2 -n 150 --calibrate yes --json calibrated.json "http://$A/"
sed '/^  "environment"/s/"cpu_model": "[^"]*", "cpus_online": [0-9]*/"cpu_model": "Another CPU", "cpus_online": 64/' \
    calibrated.json >other_machine.json
# Two shards of one run.
AT=$(($(date +%s) + 2))
run -c 2 -n 200 --shard 0/2 --start-at $AT --json shard0.json "http://$A/" &
run -c 2 -n 200 --shard 1/2 --start-at $AT --json shard1.json "http://$A/"
wait $!
# A compare of two rafale serve, three rounds.
P1=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
P2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/plan" <<P
[settings]
repeat = 3
warmup = 0s
connections = 2
requests = 40
threads = 1

[server alpha]
start = exec $R serve --listen 127.0.0.1:$P1 -t 1
url = http://127.0.0.1:$P1

[server beta]
start = exec $R serve --listen 127.0.0.1:$P2 -t 1
url = http://127.0.0.1:$P2

[workload hello]
path = /
P
"$R" compare --json compare.json "$T/plan" >/dev/null
