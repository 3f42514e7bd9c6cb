-- wrk script for `cargo xtask bench`: every request POSTs the JSON file named after `--`,
-- and the run ends with one machine-readable line that bench.rs reads.

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local body = file:read("*a")
  file:close()
  request_text = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end

function request()
  return request_text
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "wrk-result requests=%d duration_us=%d p50_us=%d p99_us=%d status_errors=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50.0), latency:percentile(99.0),
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
