"""Helpers of the test suite, imported by the test modules (never from `conftest`).

- `helpers`: tool calls as JSON text, calc's implementations and stubs, a simple time
  model, workspace snapshots, one-step helpers.
- `lm_support`: a small, quick run of the language-model trainer.
- `llm_server`: a scripted OpenAI-compatible server on the loopback interface.
- `bench_agents`: agents the bench imports by path (`support.bench_agents:...`) in
  worker processes.
- `ray_session`: the one owner of the local Ray instance the Ray tests share.

`tests/` is on `sys.path` under pytest (rootdir conftest), and worker processes inherit it.
"""
