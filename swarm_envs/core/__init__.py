"""The parts of one step: clock, messages, workspace, tools, actions, config, outcomes.

Owns the mechanisms an episode is made of, each pure or over plain data: the virtual clock
(`clock`), direct messages and channels (`channels`), the shared workspace's file tools
(`workspace`), capped text (`text`), the one tool table (`tools`), configuration
(`config`), parsing actions (`actions`), what a step produced (`outcome`), observation text
(`observation`), recordings (`recording`), spaces (`spaces`), time-cap curricula
(`schedule`) and thread-safe parsing of Python source (`pysource`).

May import: `swarm_envs.error` only. Inside, the bottom is `clock`, `channels`,
`workspace`, `text`; then `tools`; then the rest (`pysource` imports nothing of it).
"""
