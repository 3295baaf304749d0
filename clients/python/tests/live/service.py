"""
The live tests run against the service as a person runs it: ``npm start`` on free ports, started
once for the session, and an account's key from the operator CLI (``npm run admin -- account
create``), as the README's quick start gets one. With ``TEMPMAIL_BASE_URL``, ``TEMPMAIL_API_KEY``
and ``SMTP_PORT`` all set, they run against that service instead.
"""

import json
import os
import re
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

PROJECT = Path(__file__).resolve().parents[4]


@dataclass(frozen=True)
class LiveService:
    base_url: str
    smtp_port: int
    api_key: str

    def env(self) -> Dict[str, str]:
        """The variables the README's example reads."""
        return {"TEMPMAIL_BASE_URL": self.base_url, "TEMPMAIL_API_KEY": self.api_key, "SMTP_PORT": str(self.smtp_port)}


def admin(args: List[str], data_dir: str) -> str:
    """Runs the operator CLI as `npm run admin` does, and returns the key it printed."""
    run = subprocess.run(
        ["npm", "run", "--silent", "admin", "--", *args], cwd=PROJECT, env={**os.environ, "DATA_DIR": data_dir},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    key: str = json.loads(run.stdout)["api_key"]
    return key


def start(data_dir: str) -> Tuple["subprocess.Popen[str]", str, int]:
    """Runs `npm start` on free ports, as a person does, and returns it with its API address and SMTP port once it is ready."""
    child = subprocess.Popen(
        ["npm", "run", "--silent", "start"], cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PORT": "0", "SMTP_PORT": "0", "DATA_DIR": data_dir}, start_new_session=True,
    )  # fmt: skip
    output: List[str] = []
    timer = threading.Timer(30, lambda: os.killpg(child.pid, signal.SIGKILL))
    timer.start()
    try:
        stream = child.stdout
        assert stream is not None
        for line in stream:
            output.append(line)
            ready = re.search(r"ready: api (http://\S+) smtp smtp://[^:\s]+:(\d+)", line)
            if ready:
                # Keep reading what the service writes, so that it never blocks on a full pipe.
                threading.Thread(target=stream.read, daemon=True).start()
                return child, ready.group(1), int(ready.group(2))
    finally:
        timer.cancel()
    raise AssertionError("npm start exited (or took 30 s) before its ready line:\n" + "".join(output))
