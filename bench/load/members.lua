-- wrk script for bench/load.mjs: each thread cycles through the members (one line each in the file
-- given as the first argument: token, then "videoId signedMediaPath" pairs for the videos the
-- member may watch), issuing per member: list, details, stream URL, one 256 KiB range.
local members = {}
local step, index, member, video = 0, 0, nil, nil
local range, size

function init(args)
  range = tonumber(args[2])
  size = tonumber(args[3])
  for line in io.lines(args[1]) do
    local fields = {}
    for f in line:gmatch("%S+") do fields[#fields + 1] = f end
    local m = { token = fields[1], videos = {} }
    for i = 2, #fields, 2 do m.videos[#m.videos + 1] = { id = fields[i], media = fields[i + 1] } end
    members[#members + 1] = m
  end
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
  index = math.random(#members)
end

function request()
  if step == 0 then
    index = index % #members + 1
    member = members[index]
    video = member.videos[math.random(#member.videos)]
  end
  local auth = { Authorization = "Bearer " .. member.token }
  local s = step
  step = (step + 1) % 4
  if s == 0 then return wrk.format("GET", "/api/videos", auth) end
  if s == 1 then return wrk.format("GET", "/api/videos/" .. video.id, auth) end
  if s == 2 then return wrk.format("GET", "/api/videos/" .. video.id .. "/stream", auth) end
  local start = math.random(0, size - range)
  return wrk.format("GET", video.media, { Range = "bytes=" .. start .. "-" .. (start + range - 1) })
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
