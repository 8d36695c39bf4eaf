import json
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from rewardlab.errors import ConfigError
from rewardlab.wrappers import RecordEpisodes, VectorReward, read_episodes
from rewardlab.wrappers.recording import append_line
from tests.conftest import EchoEnv
from tests.wrappers.stairs import StairsEnv

ROOT = Path(__file__).resolve().parents[2]


def test_one_line_per_finished_episode(tmp_path):
    path = tmp_path / "runs" / "episodes.jsonl"
    env = RecordEpisodes(StairsEnv(), path)
    env.reset(seed=7, options={"task_id": "s0"})
    for action in ["up", "jump", "up", "submit"]:
        env.step(action)
    env.reset(seed=8, options={"task_id": "s1"})
    env.step("up")  # reset before the end: not recorded
    env.reset()
    for _ in range(8):  # truncated by the turn budget
        *_, truncated, _ = env.step("down")
    env.close()
    records = list(read_episodes(path))
    assert len(records) == 2 == env.episodes_written
    first = records[0]
    assert first["task_id"] == "s0" and first["seed"] == 7 and first["options"] == {"task_id": "s0"}
    assert first["actions"] == ["up", "jump", "up", "submit"]
    assert first["observations"] == ["climb to 2", "height 1", "unknown action 'jump'", "height 2", "submitted"]
    assert first["rewards"] == [0.0, 0.0, 0.0, pytest.approx(0.75 * 1 / 3 + 2 / 3)]
    assert first["return"] == pytest.approx(sum(first["rewards"]))
    assert first["components"] == {"reached": 1.0, "closeness": 1.0, "format": 0.75}
    assert first["milestones"] == [["height1"], [], ["height2"], []]
    assert first["is_success"] is False and first["terminated"] is True and first["truncated"] is False
    assert records[1]["seed"] is None and records[1]["truncated"] is True and len(records[1]["actions"]) == 8


def test_hostile_text_and_vector_rewards_stay_valid_json(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(VectorReward(EchoEnv()), path)
    env.reset(seed=0, options={"task_id": "t0"})
    env.step("\ud800 lone surrogate \n\x00 and emoji 🤖")
    env.flush()
    (record,) = read_episodes(path)
    assert record["rewards"] == [[0.0, 0.0]]  # wrong and far too long: both components 0
    assert record["return"] == [0.0, 0.0] and "\x00" in record["actions"][0]


def test_append_line_replaces_the_file_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "log.jsonl"
    for i in range(3):
        append_line(path, json.dumps({"i": i}))
    assert [json.loads(line)["i"] for line in path.read_text().splitlines()] == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl", "log.jsonl.lock"]


WRITER = textwrap.dedent(
    """
    import sys
    from rewardlab.wrappers import RecordEpisodes
    from tests.conftest import EchoEnv

    env = RecordEpisodes(EchoEnv(), sys.argv[1], flush_interval_s=0)
    for i in range(10_000):
        env.reset(seed=i)
        env.step("x" * 4_000_000)   # ~4 MB lines: each write takes a while
        print("wrote", flush=True)
    """
)


def start_writer(path, **kwargs):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT, stdout=subprocess.PIPE, **kwargs)


def check_complete_lines(path):
    """Every line parses and the file ends with a newline; returns the number of lines."""
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    for line in lines[:-1]:
        assert json.loads(line)["actions"] == ["x" * 4_000_000]
    return len(lines) - 1


def test_killing_a_writer_mid_write_never_leaves_a_broken_line(tmp_path):
    path = tmp_path / "episodes.jsonl"
    rng = np.random.default_rng(0)
    for _ in range(3):
        process = start_writer(path)
        assert process.stdout.readline().strip() == b"wrote"
        time.sleep(rng.uniform(0.0, 0.3))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        process.stdout.close()
        check_complete_lines(path)
    # the next writer cleans up the temp file the killed one may have left
    append_line(path, "{}")
    assert not list(tmp_path.glob(".episodes.jsonl.*.tmp"))


def test_a_writer_killed_inside_a_write_call_leaves_the_file_intact(tmp_path):
    """Deterministic: a 10 MB file-size limit makes the writer crash (EFBIG: Python ignores SIGXFSZ)
    partway through its third 4 MB line, inside the write; a plain append would leave 2 MB of it."""
    path = tmp_path / "episodes.jsonl"

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (10_000_000, 10_000_000))

    process = start_writer(path, preexec_fn=limit_file_size, stderr=subprocess.PIPE)
    output, errors = process.communicate(timeout=60)
    assert process.returncode == 1 and b"File too large" in errors
    assert output.split() == [b"wrote", b"wrote"]
    assert check_complete_lines(path) == 2


BUFFERED_WRITER = textwrap.dedent(
    """
    import sys
    from rewardlab.wrappers import RecordEpisodes
    from tests.conftest import EchoEnv

    env = RecordEpisodes(EchoEnv(), sys.argv[1], flush_interval_s=3600)
    for i in range(5):
        env.reset(seed=i, options={"task_id": f"t{i}"})
        env.step("alpha")
    print(sum(1 for _ in open(sys.argv[1])) if sys.argv[2] == "count" else "", flush=True)
    if sys.argv[2] == "drop":
        del env  # garbage-collected without close()
        print(sum(1 for _ in open(sys.argv[1])), flush=True)
    """
)


@pytest.mark.parametrize("ending", ["count", "exit", "drop"])
def test_buffered_episodes_are_written_at_exit_and_when_the_wrapper_is_dropped(tmp_path, ending):
    path = tmp_path / "episodes.jsonl"
    path.write_text("")
    done = subprocess.run(
        [sys.executable, "-c", BUFFERED_WRITER, str(path), ending], cwd=ROOT, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if ending == "count":
        assert done.stdout.split()[0] == b"0"  # the hour-long interval has not passed: all buffered
    if ending == "drop":
        assert done.stdout.split() == [b"5"]
    assert [r["task_id"] for r in read_episodes(path)] == [f"t{i}" for i in range(5)]


def test_flush_interval_batches_writes_and_flush_writes_now(tmp_path):
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(EchoEnv(), path, flush_interval_s=3600)
    for i in range(3):
        env.reset(seed=i, options={"task_id": f"t{i}"})
        env.step("alpha")
    assert not path.exists() and env.episodes_written == 3
    env.flush()
    assert [r["task_id"] for r in read_episodes(path)] == ["t0", "t1", "t2"]
    env.reset(seed=3, options={"task_id": "t3"})
    env.step("alpha")
    assert len(list(read_episodes(path))) == 3
    env.close()
    assert [r["task_id"] for r in read_episodes(path)][-1] == "t3"


def test_bad_path(tmp_path):
    with pytest.raises(ConfigError, match="directory"):
        RecordEpisodes(EchoEnv(), tmp_path)
    with pytest.raises(ConfigError, match="path"):
        RecordEpisodes(EchoEnv(), 12)
    with pytest.raises(ConfigError, match="flush_interval_s"):
        RecordEpisodes(EchoEnv(), tmp_path / "e.jsonl", flush_interval_s=-1)


def test_non_atomic_mode_appends_and_cuts_off_a_partial_last_line(tmp_path):
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(EchoEnv(), path, atomic=False, flush_interval_s=0)
    env.reset(seed=0, options={"task_id": "t0"})
    env.step("alpha")
    inode = path.stat().st_ino
    with open(path, "ab") as file:  # what a writer killed inside its write leaves
        file.write(b'{"task_id": "t1", "acti')
    assert [r["task_id"] for r in read_episodes(path)] == ["t0"]
    env.reset(seed=1, options={"task_id": "t2"})
    env.step("gamma")
    assert [r["task_id"] for r in read_episodes(path)] == ["t0", "t2"]
    assert path.read_bytes().count(b"\n") == 2 and path.stat().st_ino == inode  # appended in place
    append_line(path, "x" * 100_000, atomic=False)  # the partial-line scan crosses chunk boundaries
    with open(path, "ab") as file:
        file.write(b"y" * 200_000)
    append_line(path, "{}", atomic=False)
    assert path.read_bytes().endswith(b"x" * 100_000 + b"\n{}\n")
