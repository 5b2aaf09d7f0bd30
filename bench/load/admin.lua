-- wrk script for bench/load.mjs: an admin alternating a dashboard read and a write from a queue
-- (the file given as the first argument: one "POST /api/admin/..." per line) at a steady pace
-- (the second argument: milliseconds between requests); once the queue is empty, reads only.
local queue, next, read, pause, turn = {}, 1, nil, 0, 0

function init(args)
  for line in io.lines(args[1]) do queue[#queue + 1] = line end
  pause = tonumber(args[2])
  read = args[3]
end

function delay() return pause end

function request()
  turn = turn + 1
  if turn % 2 == 0 and next <= #queue then
    local path = queue[next]
    next = next + 1
    return wrk.format("POST", path)
  end
  return wrk.format("GET", read)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
