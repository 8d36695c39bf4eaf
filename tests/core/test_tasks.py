import numpy as np
import pytest

from rewardlab.core import Task, TaskSet
from rewardlab.errors import ConfigError, UnknownTaskError


def make_tasks():
    return TaskSet([Task(f"task-{i}", "train" if i % 3 else "test", f"p{i}", {"ref": i}) for i in range(12)])


def test_ids_splits_and_get():
    tasks = make_tasks()
    assert len(tasks) == 12
    assert tasks.ids("test") == ["task-0", "task-3", "task-6", "task-9"]
    assert tasks.get("task-4").data["ref"] == 4
    with pytest.raises(UnknownTaskError, match="Did you mean 'task-4'"):
        tasks.get("task-4x")
    with pytest.raises(ConfigError, match="split"):
        tasks.ids("valid")


def test_seeded_draws_repeat_and_respect_split():
    tasks = make_tasks()

    def draws(seed):
        rng = np.random.default_rng(seed)
        return [tasks.sample(rng).id for _ in range(10)]

    assert draws(3) == draws(3) and draws(3) != draws(4)
    assert {tasks.sample(np.random.default_rng(s), "test").id for s in range(50)} <= set(tasks.ids("test"))
    assert len({tasks.sample(np.random.default_rng(s)).id for s in range(200)}) == 8


def test_jsonl_round_trip(tmp_path):
    tasks = make_tasks()
    path = tmp_path / "tasks.jsonl"
    tasks.to_jsonl(path)
    loaded = TaskSet.from_jsonl(path)
    assert loaded.ids() == tasks.ids() and loaded.get("task-5").data == {"ref": 5}


def test_bad_jsonl_and_duplicates(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "split": "train", "prompt": "x"}\n{"id": "b"}\n')
    with pytest.raises(ConfigError, match="bad.jsonl:2"):
        TaskSet.from_jsonl(path)
    with pytest.raises(ConfigError, match="duplicate"):
        TaskSet([Task("a", "train", ""), Task("a", "test", "")])


def test_task_data_is_read_only():
    task = Task("a", "train", "p", {"ref": 1})
    with pytest.raises(TypeError):
        task.data["ref"] = 2
