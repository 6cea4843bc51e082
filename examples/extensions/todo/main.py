#!/usr/bin/env python3
"""todo: a persistent todo list in a zot panel, and a tool that lets the model read it.

/todo opens the panel (/todo <text> adds an item first). In the panel: up/down move,
a adds (type the text, enter to save, backspace to erase), x toggles done, d deletes,
esc closes. The list lives in todos.json in the data_dir zot gives the extension.
"""
import json
import os
import threading

from zot_sdk import Extension, open_panel, text

ext = Extension("todo", "1.0.0")
PANEL = "todo"
FOOTER = "up/down move - a add - x toggle - d delete - esc close"
INPUT_FOOTER = "type the todo - enter save - backspace erase - esc close"

lock = threading.Lock()
todos = []  # [{"text": str, "done": bool}]
view = {"cursor": 0, "typing": None}  # typing: the text being entered, or None
store = {"path": "todos.json"}


def load():
    try:
        with open(store["path"], encoding="utf-8") as handle:
            saved = json.load(handle)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as problem:
        ext.log("cannot read %s: %s; starting empty" % (store["path"], problem))
        return
    for item in saved.get("todos", []) if isinstance(saved, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            todos.append({"text": item["text"], "done": bool(item.get("done"))})


def save():
    """Writes the list atomically (a temporary file renamed over the old one)."""
    temporary = store["path"] + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump({"todos": todos}, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    os.replace(temporary, store["path"])


def title():
    done = sum(1 for item in todos if item["done"])
    return "Todos (%d open, %d done)" % (len(todos) - done, done)


def lines():
    body = []
    for index, item in enumerate(todos):
        marker = ">" if index == view["cursor"] and view["typing"] is None else " "
        body.append("%s [%s] %s" % (marker, "x" if item["done"] else " ", item["text"]))
    if not body:
        body.append("(nothing to do: press a to add a todo)")
    if view["typing"] is not None:
        body += ["", "new: " + view["typing"] + "_"]
    return body


def redraw():
    footer = FOOTER if view["typing"] is None else INPUT_FOOTER
    ext.render_panel(PANEL, title=title(), lines=lines(), footer=footer)


@ext.on_hello
def where(host):
    store["path"] = os.path.join(host.data_dir, "todos.json")
    load()


@ext.command("todo", "open the todo list (/todo <text> adds one)")
def todo(args):
    with lock:
        if args:
            todos.append({"text": args, "done": False})
            save()
        view["typing"] = None
        view["cursor"] = min(view["cursor"], max(0, len(todos) - 1))
        return open_panel(PANEL, title=title(), lines=lines(), footer=FOOTER)


def typing_key(key):
    if key.key == "enter":
        entry = view["typing"].strip()
        view["typing"] = None
        if entry:
            todos.append({"text": entry, "done": False})
            view["cursor"] = len(todos) - 1
            save()
    elif key.key == "backspace":
        view["typing"] = view["typing"][:-1]
    elif key.key == "rune" and key.text:
        view["typing"] += key.text


def list_key(key):
    rune = key.text if key.key == "rune" else None
    if key.key == "up":
        view["cursor"] = max(0, view["cursor"] - 1)
    elif key.key == "down":
        view["cursor"] = min(max(0, len(todos) - 1), view["cursor"] + 1)
    elif key.key == "home":
        view["cursor"] = 0
    elif key.key == "end":
        view["cursor"] = max(0, len(todos) - 1)
    elif rune == "a":
        view["typing"] = ""
    elif rune == "x" and todos:
        todos[view["cursor"]]["done"] = not todos[view["cursor"]]["done"]
        save()
    elif rune == "d" and todos:
        del todos[view["cursor"]]
        view["cursor"] = min(view["cursor"], max(0, len(todos) - 1))
        save()
    else:
        return False
    return True


@ext.on_panel_key
def key(key):
    if key.panel_id != PANEL:
        return
    with lock:
        if view["typing"] is not None:
            typing_key(key)
        elif not list_key(key):
            return
        redraw()


@ext.on_panel_close
def closed(panel_id):
    with lock:
        view["typing"] = None


@ext.tool(
    "todo_list",
    "Read the user's todo list. Returns one line per todo: [x] for done, [ ] for open.",
    {"type": "object", "properties": {}},
)
def todo_list(args):
    with lock:
        if not todos:
            return text("The todo list is empty.")
        return text("\n".join("[%s] %s" % ("x" if t["done"] else " ", t["text"]) for t in todos))


ext.run()
