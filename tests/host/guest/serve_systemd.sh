#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# jitread's packages as a user runs them, in a guest whose PID 1 is the
# root's systemd and where they are installed (tests/host/test_deb_install.py
# runs it): first a load and a report, each line "REPORT LINE"; then
# jitread-serve.service and .socket, each check one line, "RESULT NAME
# VALUE", for the host to assert, and "RESULT at.PART SECONDS" as each
# part, and each step of a serve case, ends; the unit's journal follows
# each case, for a failure to be read.  CPU 1 is the sampled CPU.
set -u
SCRAPE_S=${SCRAPE_S:-180}

say() { echo "RESULT $1 $2"; }

# scrape S: the status line of a GET /metrics within S seconds, or none
scrape() {
	timeout "$1" bash -c 'exec 3<>/dev/tcp/127.0.0.1/9478 &&
		printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && head -c 15 <&3' \
		2>/dev/null | tr -d '\r' | grep . || echo none
}

# wait_scrape S: seconds until a scrape is answered 200, or never
wait_scrape() {
	local t0=$SECONDS
	while [ $((SECONDS - t0)) -lt "$1" ]; do
		if [ "$(scrape 10)" = "HTTP/1.1 200 OK" ]; then
			echo $((SECONDS - t0))
			return
		fi
		sleep 1
	done
	echo never
}

server() { pgrep -x jitread-http | tr '\n' ' '; }
prop() { systemctl show -p "$2" --value "$1"; }
params() {
	(cd /sys/module/jitmod/parameters 2>/dev/null &&
		grep -H . runtime_us period_us warmup_us threshold_ns |
		tr '\n' ' ')
}
journal() {
	journalctl -u "$1" --no-pager -o cat 2>&1 | tail -n 20 | sed 's/^/LOG /'
}
options() { echo "JITREAD_SERVE_OPTS=\"$1\"" > /etc/default/jitread-serve; }

# textfile NAME: the textfile's owner and mode, and whether it holds the
# refresh time, while the unit runs
textfile() {
	local f=/var/lib/jitread/jitread.prom
	say "$1.textfile" "$(stat -c '%U:%a' "$f" 2>&1 | tr ' ' _)"
	say "$1.textfile_time" "$(grep -c '^jitread_last_refresh_timestamp_seconds ' "$f" 2>&1)"
}

# node_metrics: the body of Debian's prometheus-node-exporter's /metrics
node_metrics() {
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/9100 &&
		printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && cat <&3' \
		2>/dev/null | tr -d '\r'
}

# refresh_time BODY: jitread_last_refresh_timestamp_seconds in it, whole s
refresh_time() {
	sed -n 's/^jitread_last_refresh_timestamp_seconds \([0-9.e+]*\)$/\1/p' <<<"$1" |
		awk '{ printf "%d\n", $1 }' | grep . || echo none
}

# node_exporter NAME: prometheus-node-exporter, given the unit's
# StateDirectory as fleet.rst says, serves the textfile's series, with no
# scrape error for the file
node_exporter() {
	local body="" i
	echo 'ARGS="--collector.textfile.directory=/var/lib/jitread"' \
		> /etc/default/prometheus-node-exporter
	systemctl restart prometheus-node-exporter 2>&1
	for i in $(seq 1 90); do
		body=$(node_metrics)
		grep -q '^jitread_sampled_seconds_total' <<<"$body" && break
		sleep 1
	done
	say "$1.node_series" "$(grep -c '^jitread_' <<<"$body")"
	say "$1.node_error" "$(sed -n 's/^node_textfile_scrape_error \(.*\)/\1/p' <<<"$body" | grep . || echo none)"
	say "$1.node_time" "$(( $(date +%s) - $(refresh_time "$body" | sed 's/none/0/') ))"
}

# urlencode S: S with all but unreserved characters percent-encoded
urlencode() {
	local s=$1 c out="" i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[a-zA-Z0-9._~-]) out+=$c ;;
		*) printf -v c '%%%02X' "'$c" && out+=$c ;;
		esac
	done
	echo "$out"
}

# prom_get PATH: the body of a GET of Debian's Prometheus on 9090
prom_get() {
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/9090 &&
		printf "GET %s HTTP/1.0\r\n\r\n" "$1" >&3 && cat <&3' _ "$1" \
		2>/dev/null | tr -d '\r' | sed '1,/^$/d'
}

# prom_value QUERY: the first sample's value of an instant query, whole
# units, or none
prom_value() {
	prom_get "/api/v1/query?query=$(urlencode "$1")" |
		grep -o '"value":\[[0-9.e+]*,"[^"]*"\]' | head -n 1 |
		sed 's/.*,"\([^"]*\)"\]$/\1/' |
		awk '{ printf "%d\n", $1 }' | grep . || echo none
}

# prom_rules: how many of the loaded rules are healthy, of how many
prom_rules() {
	local body
	body=$(prom_get /api/v1/rules)
	echo "$(grep -o '"health":"ok"' <<<"$body" | wc -l)/$(grep -o '"health":"' <<<"$body" | wc -l)"
}

# prom_check NAME: Debian's Prometheus scrapes node_exporter's textfile
# collector every 5 s and evaluates jitread's shipped rules each second:
# how many rules are healthy, how many jitread series it holds, and how
# old the refresh time it read is by PROM_AGE (the shipped JitreadStale
# alert's measure of age).  All of node_exporter's collectors can take
# over 5 s under TCG, and a scrape that times out marks every series of
# the target stale; the textfile collector alone is what the route needs.
prom_check() {
	local i n=none r a=none
	cat > /etc/prometheus/prometheus.yml <<-EOF
	global:
	  scrape_interval: 5s
	  scrape_timeout: 5s
	  evaluation_interval: 1s
	rule_files:
	  - /usr/share/jitread/prometheus/jitread.rules.yml
	scrape_configs:
	  - job_name: node
	    params:
	      "collect[]": [textfile]
	    static_configs:
	      - targets: ["127.0.0.1:9100"]
	EOF
	systemctl restart prometheus 2>&1
	for i in $(seq 1 120); do
		n=$(prom_value 'count({__name__=~"jitread_.+"})')
		r=$(prom_rules)
		a=$(prom_value "$PROM_AGE")
		[ "$n" != none ] && [ "$a" != none ] &&
			[ "${r%/*}" = "${r#*/}" ] && [ "${r%/*}" != 0 ] && break
		sleep 1
	done
	say "$1.prom_rules" "$r"
	say "$1.prom_series" "$n"
	say "$1.prom_age" "$a"
	say "$1.prom_up" "$(prom_value 'up{job="node"}')"
	say "at.$1.prometheus" "$SECONDS"
}

# node_after_stop NAME STOPPED: after serve stops (at epoch STOPPED), its
# file stays and node_exporter serves its last values: a refresh time no
# later than the stop, the same 3 s on, so that time() minus it grows,
# in Prometheus too: PROM_AGE at least the time since the stop, and
# grown by the time between the two queries, to 2 s either way (each
# figure is whole seconds, and each query takes its own time)
node_after_stop() {
	local a b ta tb pa pb
	a=$(refresh_time "$(node_metrics)")
	ta=$(date +%s)
	pa=$(prom_value "$PROM_AGE")
	sleep 3
	b=$(refresh_time "$(node_metrics)")
	tb=$(date +%s)
	pb=$(prom_value "$PROM_AGE")
	say "$1.node_after_stop" "$([ "$a" != none ] && [ "$a" = "$b" ] &&
		[ "$a" -le "$2" ] && echo frozen || echo "no:$a:$b:$2")"
	say "$1.prom_after_stop" "$([ "$pa" != none ] && [ "$pb" != none ] &&
		[ "$pa" -ge $((ta - $2 - 1)) ] &&
		[ "$((pb - pa - (tb - ta)))" -ge -2 ] &&
		[ "$((pb - pa - (tb - ta)))" -le 2 ] && [ "$pb" -gt "$pa" ] &&
		echo growing || echo "no:$pa:$pb:$ta:$tb:$2")"
	systemctl stop prometheus prometheus-node-exporter 2>&1
}

# restart NAME: the server killed while four clients scrape at once,
# then ten rounds of four concurrent scrapes: serve starts another, which
# answers every one, says so in the journal, and stays up
restart() {
	local old new ok=0 r i got
	old=$(server)
	for i in 1 2 3 4; do
		(for r in $(seq 1 10); do scrape 20 >/dev/null; done) &
	done
	sleep 2
	kill -9 $old
	wait
	wait_scrape 60 >/dev/null
	new=$(server)
	for r in $(seq 1 10); do
		got=$(for i in 1 2 3 4; do scrape 30 & done; wait)
		[ "$(grep -c '^HTTP/1.1 200 OK$' <<<"$got")" = 4 ] && ok=$((ok + 1))
	done
	say "$1.restart_server" "$([ -n "$old" ] && [ -n "$new" ] &&
		[ "$new" != "$old" ] &&
		echo yes || echo "no:$old:$new")"
	say "$1.restart_rounds" "$ok/10"
	say "$1.restart_active" "$(prop jitread-serve ActiveState)"
	say "$1.restart_said" "$(journalctl -u jitread-serve --no-pager -o cat |
		grep -c 'starting another (1 of ')"
	say "at.$1.restarted" "$SECONDS"
}

# serve_case NAME OPTS [stuck]: enable --now, scrape, freeze and thaw,
# stop.  With stuck, its server is stopped first, and serve alone gets
# the SIGTERM (systemctl stop would send every process a SIGCONT after
# it): serve must kill the server under the unit's own privileges; and
# before that, the server is killed under scrapes (restart).
# case_end then disables the unit and prints its journal
serve_case() {
	local name=$1 before pid t0
	options "$2"
	before=$(params)
	systemctl enable --now jitread-serve 2>&1
	say "$name.scrape_s" "$(wait_scrape "$SCRAPE_S")"
	say "at.$name.up" "$SECONDS"
	[ -d /sys/module/jitmod ] &&
		say "$name.params_set" "$([ "$before" != "$(params)" ] &&
			echo yes || echo "no: $before")"
	pid=$(server)
	systemctl freeze jitread-serve
	say "$name.freezer" "$(prop jitread-serve FreezerState)"
	sleep 3
	systemctl thaw jitread-serve
	say "$name.after_thaw" "$(wait_scrape 60)"
	say "at.$name.thawed" "$SECONDS"
	say "$name.same_server" "$([ -n "$pid" ] && [ "$pid" = "$(server)" ] &&
		echo yes || echo "no:$pid:$(server)")"
	t0=$SECONDS
	if [ -n "${3:-}" ]; then
		restart "$name"
		pid=$(server)
		textfile "$name"
		node_exporter "$name"
		prom_check "$name"
		t0=$SECONDS
		kill -STOP $pid
		systemctl kill --kill-whom=main --signal=SIGTERM jitread-serve
		while [ "$(prop jitread-serve MainPID)" != 0 ] &&
			[ $((SECONDS - t0)) -lt 60 ]; do
			sleep 1
		done
	fi
	systemctl stop jitread-serve
	say "$name.stop_s" $((SECONDS - t0))
	[ -n "${3:-}" ] && node_after_stop "$name" "$(date +%s)"
	say "$name.server_left" "$(server | tr -d ' ' | grep . || echo none)"
	[ -n "${3:-}" ] && say "$name.kill_said" "$(journalctl -u jitread-serve \
		--no-pager -o cat | grep -c 'did not end within 2000 ms; killed$')"
	say "at.$name.stop" "$SECONDS"
	say "$name.stopped" "$(prop jitread-serve ActiveState)/$(prop jitread-serve Result)/$(prop jitread-serve ExecMainStatus)"
	[ -d /sys/module/jitmod ] &&
		say "$name.params_back" "$([ "$before" = "$(params)" ] &&
			echo yes || echo "no: $before / $(params)")"
}

case_end() {
	systemctl disable jitread-serve 2>&1
	journal jitread-serve
}

# the packages on a plain load: jitmod, a report and both versions
{
	modprobe jitmod cpus=1 && jitread --version &&
		/usr/bin/jitread hist -d 5s -c 1 --json /tmp/h.json &&
		grep -o '"jitread_version": "[^"]*"' /tmp/h.json &&
		cat /sys/module/jitmod/version
	rmmod jitmod
} 2>&1 | sed 's/^/REPORT /'
say at.report "$SECONDS"

say systemd_pid1 "$(cat /proc/1/comm)"
say exposure "$(systemd-analyze security jitread-serve 2>/dev/null |
	sed -n 's/.*Overall exposure level for jitread-serve.service: \([0-9.]*\).*/\1/p')"
say at.exposure "$SECONDS"

# jitmod samples CPU 1 from its load on, a host CPU's worth under TCG:
# what needs no jitmod comes after the rmmod
modprobe jitmod cpus=1 && serve_case jitmod "-c 1 --sampler jitmod"
rmmod jitmod
case_end
say at.jitmod "$SECONDS"
serve_case user "-c 1 --sampler user --textfile /var/lib/jitread" stuck
case_end
say at.user "$SECONDS"

# a bad option: failed, with its status, and not restarted
options "--no-such-option"
systemctl start jitread-serve 2>/dev/null
sleep 8
say bad_option "$(prop jitread-serve ActiveState)/$(prop jitread-serve ExecMainStatus)/$(prop jitread-serve NRestarts)"
systemctl reset-failed jitread-serve

# socket activation: systemd holds the port, so serve can only answer on
# the socket it is passed; the first scrape starts it
options "-c 1 --sampler user"
systemctl start jitread-serve.socket
say socket_before "$(prop jitread-serve ActiveState)"
say socket.scrape_s "$(wait_scrape "$SCRAPE_S")"
say socket_after "$(prop jitread-serve ActiveState)"
say at.socket "$SECONDS"
systemctl stop jitread-serve.socket jitread-serve
journal jitread-serve
exit 0
