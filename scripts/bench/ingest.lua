-- wrk script: POST /v1/events with realistic batches of unique events.
-- Every request carries BATCH events (default 100) of mixed channels and types with ids that are unique across
-- threads and requests (thread number and a counter in the UUID), times spread over the last hour.
-- Environment: CARDINAL_KEY (ingest key), BATCH (events per request), ID_OFFSET (see below), DELAY_MS (pause
-- between a connection's requests, to hold a rate below the peak).

local counter = 0
thread_id = 0 -- set per thread by setup(); a global so that setup() can reach it
-- A second run with another ID_OFFSET sends new ids; the same offset again sends duplicates.
local id_offset = tonumber(os.getenv("ID_OFFSET") or "0")
local batch = tonumber(os.getenv("BATCH") or "100")
local key = os.getenv("CARDINAL_KEY") or ""
local now_ms = os.time() * 1000
local channels = { "content_card", "in_app_message", "banner", "push", "feature_flag" }
local types = { "impression", "impression", "impression", "click", "dismissal", "send" }
local platforms = { "ios", "android", "web" }

-- The pause is drawn uniformly from 0 to twice DELAY_MS, so that the connections do not fall into step and
-- arrive as one burst after every commit: real clients are independent of each other.
local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")
if delay_ms > 0 then
   function delay() return math.random(0, 2 * delay_ms) end
end

local threads = {}
function setup(thread)
   thread:set("thread_id", #threads + 1)
   table.insert(threads, thread)
end

function init(args)
   wrk.method = "POST"
   wrk.headers["Content-Type"] = "application/json"
   wrk.headers["Authorization"] = "Bearer " .. key
end

local function event(n)
   local user = (n * 7919) % 100000
   local ch = channels[(n % #channels) + 1]
   local ty = types[(n % #types) + 1]
   local control = ""
   if ty == "impression" and ch ~= "push" and n % 10 == 0 then control = ',"control":true' end
   return string.format(
      '{"id":"%08d-0000-4000-8000-%012d","type":"%s","channel":"%s","time":%d,"user_id":"user-%d",'
      .. '"device_id":"device-%d","session_id":"s-%d","campaign_id":"campaign-%d","variant_id":"v%d",'
      .. '"platform":"%s","sdk_version":"5.%d.0","app_version":"2.%d"%s}',
      thread_id + id_offset, n, ty, ch, now_ms - (n % 3600000), user,
      user, user % 977, n % 50, n % 4, platforms[(n % 3) + 1], n % 5, n % 3, control)
end

function request()
   local parts = {}
   for i = 1, batch do
      counter = counter + 1
      parts[i] = event(counter)
   end
   return wrk.format(nil, "/v1/events", nil, '{"events":[' .. table.concat(parts, ",") .. ']}')
end

local non200 = 0
function response(status, headers, body)
   if status ~= 200 then non200 = non200 + 1 end
end

function done(summary, latency, requests)
   io.write(string.format("requests=%d non_200=%d errors=%d p50_ms=%.2f p99_ms=%.2f\n",
      summary.requests, summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.timeout, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
