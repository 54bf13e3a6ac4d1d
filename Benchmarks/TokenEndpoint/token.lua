-- wrk script: POST each pre-made form body to the token endpoint exactly once.
--
--   TOKBENCH_DIR=DIR wrk -t C -c C -d 600s -s token.lua http://127.0.0.1:PORT/token -- DIR
--
-- Run it with as many threads as connections (-t C -c C): each wrk thread then
-- has one keep-alive connection, so its requests and answers strictly
-- alternate and this script measures every request's latency exactly (request
-- handed to wrk -> answer complete, CLOCK_MONOTONIC through LuaJIT's FFI).
-- wrk's own latency histogram is not used: wrk applies its
-- coordinated-omission correction to it, which adds synthetic samples.
--
-- DIR holds body.1 .. body.C, one application/x-www-form-urlencoded body per
-- line; thread i sends each line of body.i once. Every answer is checked
-- (status 200 and an access_token); refresh tokens go to out.i, error answers
-- to errors.i, latencies (µs) to lat.i. When a thread has had an answer to
-- each of its bodies it writes done.i (count, ok, errors, first request and
-- last answer in ns) and stops. wrk itself sleeps for the whole -d: bench.py
-- sends it SIGINT once every done.i exists. done() writes wrk.json (wrk's
-- socket-error counters).

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } tokbench_timespec;
int clock_gettime(int clk_id, tokbench_timespec *tp);
]]
local ts = ffi.new("tokbench_timespec")
local function now_ns()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

-- main state: number the threads -----------------------------------------------

local next_id = 1

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

-- thread state -------------------------------------------------------------------

local requests = {}
local count, sent, answered, ok, errors, lost = 0, 0, 0, 0, 0, 0
local with_refresh, with_id_token = 0, 0
local first_ns, last_ns, started_ns = 0, 0, nil
local latencies, refresh_tokens, error_lines = {}, {}, {}
local dir
-- wrk calls request() once on the first thread's state before the thread runs,
-- only to check what it returns (script_verify_request): that call must not use
-- up a body.
local verify_call_pending = false

-- Files are written only here: wrk sizes each thread's event loop for
-- 10 + 3 x connections file descriptors, process-wide numbers included, so
-- a file held open per thread would push later sockets past that limit.
local function write_lines(name, lines)
  local f = io.open(dir .. "/" .. name .. "." .. id, "w")
  for _, line in ipairs(lines) do f:write(line, "\n") end
  f:close()
end

local function finish()
  last_ns = now_ns()
  for i, v in ipairs(latencies) do latencies[i] = string.format("%.1f", v) end
  write_lines("lat", latencies)
  write_lines("out", refresh_tokens)
  write_lines("errors", error_lines)
  local f = io.open(dir .. "/done." .. id, "w")
  f:write(string.format('{"count": %d, "answered": %d, "ok": %d, "errors": %d, "lost": %d, ' ..
    '"with_refresh": %d, "with_id_token": %d, "first_ns": %.0f, "last_ns": %.0f}\n',
    count, answered, ok, errors, lost, with_refresh, with_id_token, first_ns, last_ns))
  f:close()
  wrk.thread:stop()
end

function init(args)
  dir = args[1]
  verify_call_pending = (id == 1)
  local headers = {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Accept"] = "application/json",
  }
  for line in io.lines(dir .. "/body." .. id) do
    if #line > 0 then
      requests[#requests + 1] = wrk.format("POST", wrk.path, headers, line)
    end
  end
  count = #requests
end

function request()
  if verify_call_pending then
    verify_call_pending = false
    return requests[1] or wrk.format("POST", wrk.path)
  end
  if started_ns then
    -- The previous request got no answer (its connection failed and wrk
    -- reconnected): count it as lost.
    started_ns = nil
    lost = lost + 1
    answered = answered + 1
    if answered == count then
      finish()
      return ""
    end
  end
  sent = sent + 1
  if sent > count then
    return "" -- nothing left (only after a lost request): send nothing
  end
  local t = now_ns()
  if sent == 1 then first_ns = t end
  started_ns = t
  return requests[sent]
end

function response(status, headers, body)
  local t = now_ns()
  if started_ns then
    latencies[#latencies + 1] = (t - started_ns) / 1000
  end
  started_ns = nil
  answered = answered + 1
  if status == 200 and body:find('"access_token"', 1, true) then
    ok = ok + 1
    local refresh = body:match('"refresh_token"%s*:%s*"([^"]+)"')
    if refresh then
      with_refresh = with_refresh + 1
      refresh_tokens[#refresh_tokens + 1] = refresh
    end
    if body:find('"id_token"', 1, true) then
      with_id_token = with_id_token + 1
    end
  else
    errors = errors + 1
    error_lines[#error_lines + 1] = tostring(status) .. " " .. (body or ""):sub(1, 300):gsub("\n", " ")
  end
  if answered == count then
    finish()
  end
end

-- main state, after the threads have ended ------------------------------------------

function done(summary, latency, reqs)
  local e = summary.errors
  local f = io.open((os.getenv("TOKBENCH_DIR") or ".") .. "/wrk.json", "w")
  f:write(string.format('{"requests": %d, "connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}\n',
    summary.requests, e.connect, e.read, e.write, e.status, e.timeout))
  f:close()
end
