#!/usr/bin/env python3
"""Drive headless Chromium over the DevTools protocol (its --remote-debugging-pipe: NUL-ended
JSON messages on fds 3 and 4, no WebSocket needed): open a page, take steps in order — wait
until a JavaScript expression holds, POST a JSON request to a URL (to change what the page
shows, and watch it change live), evaluate JavaScript (a click) — then print the page's DOM
and save a screenshot.

    cdp.py URL --step wait:JS --step post:URL JSON --step eval:JS ... [--screenshot PNG]

Exit status 0 when every wait held in time; 1 (the DOM printed all the same) when one did not.
"""
import argparse, base64, json, os, subprocess, sys, tempfile, time, urllib.request

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--step", action="append", default=[],
                    help="wait:JS, eval:JS, or post:URL followed by a space and the JSON body")
    ap.add_argument("--screenshot")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--chromium", default="chromium")
    a = ap.parse_args()
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    def fds():
        # dup2 onto the same number keeps the close-on-exec flag: set inheritance explicitly.
        a_, b_ = os.dup(to_chrome_r), os.dup(from_chrome_w)
        os.dup2(a_, 3)
        os.dup2(b_, 4)
        os.set_inheritable(3, True)
        os.set_inheritable(4, True)
    profile = tempfile.mkdtemp()
    proc = subprocess.Popen(
        [a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-pipe", f"--user-data-dir={profile}", "--window-size=1280,900",
         "about:blank"],
        preexec_fn=fds, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, close_fds=False)
    os.close(to_chrome_r); os.close(from_chrome_w)
    out = os.fdopen(to_chrome_w, "wb"); inp = os.fdopen(from_chrome_r, "rb")
    state = {"id": 0, "buf": b""}

    def send(method, params=None, session=None):
        state["id"] += 1
        msg = {"id": state["id"], "method": method, "params": params or {}}
        if session: msg["sessionId"] = session
        out.write(json.dumps(msg).encode() + b"\0"); out.flush()
        while True:
            while b"\0" not in state["buf"]:
                chunk = os.read(inp.fileno(), 65536)
                if not chunk: raise SystemExit("chromium closed the pipe")
                state["buf"] += chunk
            raw, state["buf"] = state["buf"].split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == state["id"]:
                if "error" in reply: raise SystemExit(f"{method}: {reply['error']}")
                return reply.get("result", {})

    try:
        target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        send("Page.enable", session=session)
        send("Page.navigate", {"url": a.url}, session=session)

        def holds(expr):
            r = send("Runtime.evaluate", {"expression": f"Boolean({expr})", "returnByValue": True}, session=session)
            return r.get("result", {}).get("value") is True

        def wait(expr):
            deadline = time.time() + a.timeout
            while time.time() < deadline:
                if holds(expr): return True
                time.sleep(0.05)
            return False

        ok = True
        for step in a.step:
            kind, _, arg = step.partition(":")
            if kind == "wait":
                ok = wait(arg)
            elif kind == "eval":
                send("Runtime.evaluate", {"expression": arg, "awaitPromise": True}, session=session)
            elif kind == "post":
                url, _, body = arg.partition(" ")
                req = urllib.request.Request(url, data=body.encode(),
                                             headers={"content-type": "application/json"})
                urllib.request.urlopen(req).read()
            else:
                raise SystemExit(f"unknown step {step}")
            if not ok:
                print(f"cdp.py: this did not hold in {a.timeout} s: {arg}", file=sys.stderr)
                break
        if a.screenshot:
            shot = send("Page.captureScreenshot", {"format": "png"}, session=session)
            with open(a.screenshot, "wb") as f: f.write(base64.b64decode(shot["data"]))
        dom = send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML", "returnByValue": True}, session=session)
        print(dom["result"]["value"])
        sys.exit(0 if ok else 1)
    finally:
        proc.kill()

if __name__ == "__main__":
    main()
