# Turns bench/compare.sh's runs.tsv into one Markdown table of medians.
# Input columns (tab-separated): mode tool rep status tool_rps nginx_rps cpu_us
# rss_kib p50_ms p99_ms errors conns_per_req wall_s; status is ok, missing or
# error…; wall_s is not summarised.
# Variables: modes and tools, space-separated, give the row order. With
# loadgate-base among the tools, a second table gives loadgate's medians
# relative to loadgate-base's, mode by mode. The baselines
# of a mode are wrk for keepalive, tlsshort and tls, wrk then ab for short,
# h2load for h2 and h2tls, ghz for grpc and artillery for ws.

function add(k, col, v) { if (v != "" && v != "n/a") vals[k, col] = vals[k, col] " " v }

# median of the numbers collected for k, col, or "" when there are none.
function median(k, col, n, a, i, j, x) {
  n = split(vals[k, col], a, " ")
  if (n == 0) return ""
  for (i = 2; i <= n; i++) {
    x = a[i] + 0
    for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]
    a[j + 1] = x
  }
  return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}

function fmt(f, v) { return v == "" ? "n/a" : sprintf(f, v) }
function share(v, base) { return v == "" || base == "" || base == 0 ? "n/a" : sprintf("%.2f×", v / base) }
function ratio(v, base, name) { return v == "" || base == "" || base == 0 ? "n/a" : sprintf("%.2f× %s", v / base, name) }
# ratios prints the ratio of the median col of k to that of each baseline
# of mode md, comma-separated.
function ratios(k, col, md, nb, bs, i, s, v) {
  nb = split(md == "short" ? "wrk ab" : md ~ /^h2/ ? "h2load" : md == "grpc" ? "ghz" : md == "ws" ? "artillery" : "wrk", bs, " ")
  v = median(k, col)
  for (i = 1; i <= nb; i++) s = s (i > 1 ? ", " : "") ratio(v, median(md SUBSEP bs[i], col), bs[i])
  return s
}
# row prints a table row whose cells after "runs ok" all say s.
function row(label, status, s, i, line) {
  line = label status
  for (i = 0; i < 10; i++) line = line " | " s
  print line " |"
}

{
  k = $1 SUBSEP $2
  total[k]++
  if ($4 == "missing") missing[k] = 1
  if ($4 != "ok") next
  ok[k]++
  add(k, "trps", $5); add(k, "nrps", $6); add(k, "cpu", $7); add(k, "rss", $8)
  add(k, "p50", $9); add(k, "p99", $10); add(k, "err", $11); add(k, "cpr", $12)
}

END {
  nm = split(modes, m, " ")
  nt = split(tools, t, " ")
  print "| mode | tool | runs ok | rps (tool) | rps (nginx) | rps vs base | CPU µs/req | CPU vs base | peak RSS KiB | p50 ms | p99 ms | errors | conns/req |"
  print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= nm; i++) {
    for (j = 1; j <= nt; j++) {
      k = m[i] SUBSEP t[j]
      label = "| " m[i] " | " t[j] " | "
      if (!(k in total)) continue # the harness does not run this tool in this mode
      if (k in missing) { row(label, "missing", "missing"); continue }
      if (!ok[k]) { row(label, "0/" total[k], "error"); continue }
      nrps = median(k, "nrps"); cpu = median(k, "cpu")
      print label ok[k] "/" total[k] " | " fmt("%.0f", median(k, "trps")) " | " fmt("%.0f", nrps) " | " \
        ratios(k, "nrps", m[i]) " | " fmt("%.2f", cpu) " | " ratios(k, "cpu", m[i]) " | " \
        fmt("%.0f", median(k, "rss")) " | " fmt("%.2f", median(k, "p50")) " | " fmt("%.2f", median(k, "p99")) " | " \
        fmt("%.0f", median(k, "err")) " | " fmt("%.3f", median(k, "cpr")) " |"
    }
  }
  if (index(" " tools " ", " loadgate-base ")) builds(nm, m)
}

# builds prints, per mode, loadgate's median rps and CPU per request
# relative to loadgate-base's: two builds measured side by side.
function builds(nm, m, i, a, b) {
  print ""
  print "| mode | rps, loadgate / loadgate-base | CPU µs/req, loadgate / loadgate-base |"
  print "|---|---:|---:|"
  for (i = 1; i <= nm; i++) {
    a = m[i] SUBSEP "loadgate"; b = m[i] SUBSEP "loadgate-base"
    if (!ok[a] || !ok[b]) continue
    print "| " m[i] " | " share(median(a, "nrps"), median(b, "nrps")) " | " share(median(a, "cpu"), median(b, "cpu")) " |"
  }
}
