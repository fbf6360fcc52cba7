"""The file tools of a codeframe-shaped agent, backed by vfsctl.

Such an agent offers its model two tools:

    edit_file   {path, edits: [{search, replace}]}
    create_file {path, content}                     never overwrites

and feeds each result back as a tool result. With vfsctl behind them, a search text
with curly quotes or dropped trailing spaces still lands where it was meant, one that
matches twice is refused with the lines, a create over an existing file is refused,
and every call is journaled so the turn can be taken back.

Run it on a scratch folder to see the replies:

    python3 examples/codeframe_tools.py /tmp/scratch
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import vfsctl  # noqa: E402

# The tool declarations the agent sends its model (OpenAI's function shape).
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "description": "Replace text in a file. Each search must match one place.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "edits": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"search": {"type": "string"}, "replace": {"type": "string"}},
                            "required": ["search", "replace"],
                        },
                    },
                },
                "required": ["path", "edits"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "create_file",
            "description": "Create a new file. Refuses a path that exists.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]


class FileTools:
    """Runs the agent's tool calls through vfsctl; one instance per agent session."""

    def __init__(self, root: str, session: str) -> None:
        self.engine = vfsctl.Engine(root, session=session)
        self.turn = 0

    def new_turn(self) -> str:
        """Called when the user sends a prompt: calls after it carry its label."""
        self.turn += 1
        return f"t{self.turn}"

    def run(self, name: str, args: Dict[str, Any]) -> Dict[str, Any]:
        """One tool call: the tool result the agent feeds back to its model.
        vfsctl's edit_file takes {search, replace} edits as they are, and its
        create_file refuses an existing path (file_exists)."""
        if name not in ("edit_file", "create_file"):
            return {"content": f"Unknown tool {name!r}.", "is_error": True}
        reply = self.engine.call(name, args, turn=f"t{self.turn}")
        return {"content": reply.text, "is_error": not reply.ok, "kind": reply.kind}

    def close(self) -> None:
        self.engine.close()


def main(root: str) -> None:
    os.makedirs(root, exist_ok=True)
    tools = FileTools(root, session="codeframe-demo")
    try:
        tools.new_turn()
        calls = [
            ("create_file", {"path": "app.py", "content": 'def greet(name):\n    print("Hello, " + name)\n'}),
            # Curly quotes where the file has straight ones: matched, and the file's kept.
            ("edit_file", {"path": "app.py", "edits": [{"search": "print(“Hello, ” + name)", "replace": "print(“Hi, ” + name)"}]}),
            # A create over an existing file: refused, the file untouched.
            ("create_file", {"path": "app.py", "content": "oops\n"}),
        ]
        for name, args in calls:
            print(json.dumps(tools.run(name, args), ensure_ascii=False))
        print(json.dumps(tools.engine.rewind("t1"), ensure_ascii=False))
    finally:
        tools.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "scratch")
