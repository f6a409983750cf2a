#!/usr/bin/env python3
# How long after its due time a schedule starts: 20 schedules, each due a second after it is
# created, against a running `vouch serve --listen 127.0.0.1:18765` (docs/performance.md).
import json, time, urllib.request, uuid, datetime
url = "http://127.0.0.1:18765/"
def rpc(method, params):
    req = urllib.request.Request(url, data=json.dumps({"jsonrpc":"2.0","id":1,"method":method,"params":params}).encode(), headers={"content-type":"application/json"})
    return json.load(urllib.request.urlopen(req))["result"]
lags = []
for i in range(20):
    start = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
    tid = str(uuid.uuid4())
    rpc("tasks.create", {"id": tid, "name": "lag", "schemas": {"method": "aggregate_results"},
        "schedule_enabled": True, "schedule_type": "interval", "schedule_expression": "3600",
        "schedule_start_at": start.isoformat().replace("+00:00", "Z")})
    while True:
        t = rpc("tasks.get", {"task_id": tid})
        if t["started_at"]:
            s = datetime.datetime.fromisoformat(t["started_at"].replace("Z", "+00:00"))
            lags.append((s - start).total_seconds() * 1000); break
        time.sleep(0.01)
lags.sort()
print(f"n={len(lags)} median={lags[len(lags)//2]:.0f} ms max={lags[-1]:.0f} ms min={lags[0]:.0f} ms")
