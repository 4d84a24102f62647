# Reads the output of one load tool (bench/compare.sh sets tool to wrk, ab, hey,
# vegeta, h2load, ghz, artillery or loadgate; vegeta's is its `report`; h2load and
# artillery's WebSocket engine report no percentiles) and prints "rps p50_ms p99_ms
# errors" as the tool reported them, n/a for what it did not report. ab and
# loadgate share a format: loadgate's console summary is modelled on ab's.

function ms(v, n, p) {
  n = v + 0
  if (v ~ /(us|µs)$/) return n / 1000
  if (v ~ /ns$/) return n / 1e6
  if (v ~ /ms$/) return n
  if (v ~ /^[0-9]+m[0-9.]+s$/) { split(v, p, "m"); return (p[1] * 60 + p[2]) * 1000 }
  if (v ~ /s$/) return n * 1000
  return n
}
function after_bracket(line) { sub(/^[^]]*\] */, "", line); return line }
tool == "wrk" && /^Requests\/sec:/ { rps = $2 }
tool == "wrk" && $1 == "50%" { p50 = ms($2) }
tool == "wrk" && $1 == "99%" { p99 = ms($2) }
tool == "wrk" && /Socket errors:/ { gsub(/,/, ""); err += $4 + $6 + $8 + $10 }
tool == "wrk" && /Non-2xx or 3xx responses:/ { err += $NF }
(tool == "ab" || tool == "loadgate") && /^Requests per second:/ { rps = $4 }
(tool == "ab" || tool == "loadgate") && $1 == "50%" { p50 = $2 }
(tool == "ab" || tool == "loadgate") && $1 == "99%" { p99 = $2 }
(tool == "ab" || tool == "loadgate") && /^(Failed requests|Non-2xx responses):/ { err += $3 }
tool == "h2load" && /^finished in/ { rps = $4 }
tool == "h2load" && /^requests:/ { err += $10 + $12 + $14 }
tool == "hey" && /^ *Requests\/sec:/ { rps = $2 }
tool == "hey" && $1 ~ /^50%+$/ && $2 == "in" { p50 = $3 * 1000 }
tool == "hey" && $1 ~ /^99%+$/ && $2 == "in" { p99 = $3 * 1000 }
tool == "hey" && /^Status code distribution:/ { sec = "status" }
tool == "hey" && /^Error distribution:/ { sec = "error" }
tool == "hey" && /^ +\[[0-9]+\]/ { c = $1; gsub(/[\[\]]/, "", c); if (sec == "error") err += c; else if (c != 200) err += $2 }
tool == "vegeta" && /^Requests +\[/ { split(after_bracket($0), f, ", *"); rps = f[3] + 0 }
tool == "vegeta" && /^Latencies +\[/ { split(after_bracket($0), f, ", *"); p50 = ms(f[3]); p99 = ms(f[6]) }
tool == "vegeta" && /^Status Codes +\[/ {
  n = split(after_bracket($0), f, " +")
  for (i = 1; i <= n; i++) if (split(f[i], kv, ":") == 2 && kv[1] != "200") err += kv[2]
}
tool == "ghz" && /^ +Requests\/sec:/ { rps = $2 }
tool == "ghz" && $1 == "50" && $2 == "%" && $3 == "in" { p50 = ms($4 $5) }
tool == "ghz" && $1 == "99" && $2 == "%" && $3 == "in" { p99 = ms($4 $5) }
tool == "ghz" && /^ +\[[A-Za-z]+\] +[0-9]+ responses/ { if ($1 != "[OK]") err += $2 }
# Artillery prints a report every 10 s and a summary last: the last value wins.
tool == "artillery" && /^websocket\.receive_rate:/ { rps = $NF + 0 }
tool == "artillery" && /^errors\./ { err += $NF }
function out(x) { return x == "" ? "n/a" : x }
END { if (rps != "") err += 0; print out(rps), out(p50), out(p99), out(err) }
