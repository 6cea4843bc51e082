"""What handlers receive: the host's description, an intercepted tool call, tool result or
prompt, a panel key."""
import os


class HostInfo:
    """What `hello_ack` says about the host: versions, model, the user's project, your dirs."""

    def __init__(self, frame):
        self.protocol_version = frame.get("protocol_version")
        self.zot_version = frame.get("zot_version")
        self.provider = frame.get("provider")
        self.model = frame.get("model")
        #: The user's project directory (your process runs in the extension directory).
        self.cwd = frame.get("cwd")
        self.extension_dir = frame.get("extension_dir") or os.getcwd()
        #: Where to keep your state (settings, caches); today the extension directory.
        self.data_dir = frame.get("data_dir") or self.extension_dir
        #: The whole `hello_ack` frame, for fields newer than this SDK.
        self.raw = frame

    def __repr__(self):
        return "HostInfo(zot %s, %s/%s, cwd=%r)" % (
            self.zot_version,
            self.provider,
            self.model,
            self.cwd,
        )


class ToolCall:
    """An intercepted tool call: `name`, `args` (a dict) and the call's `id`."""

    __slots__ = ("id", "name", "args")

    def __init__(self, id, name, args):
        self.id = id
        self.name = name
        self.args = args

    def __repr__(self):
        return "ToolCall(%r, %r)" % (self.name, self.args)


class InterceptedResult:
    """An intercepted tool result: the tool's `name`, `args`, the call's `id`, its `content`
    (a list of blocks) and `is_error`."""

    __slots__ = ("id", "name", "args", "content", "is_error")

    def __init__(self, id, name, args, content, is_error):
        self.id = id
        self.name = name
        self.args = args
        self.content = content
        self.is_error = is_error

    def text(self):
        """The text blocks of the content, joined."""
        return "".join(
            b.get("text", "") for b in self.content if isinstance(b, dict) and b.get("type") == "text"
        )

    def __repr__(self):
        return "InterceptedResult(%r, error=%r)" % (self.name, self.is_error)


class Prompt:
    """An intercepted prompt: its `text` and `source` (user, extension, steer or queue)."""

    __slots__ = ("text", "source")

    def __init__(self, text, source):
        self.text = text
        self.source = source

    def __repr__(self):
        return "Prompt(%r, %r)" % (self.text, self.source)


class PanelKey:
    """A key pressed in one of your panels: `panel_id`, `key` and, for `key == "rune"`, `text`."""

    __slots__ = ("panel_id", "key", "text")

    def __init__(self, panel_id, key, text):
        self.panel_id = panel_id
        self.key = key
        self.text = text

    def __repr__(self):
        if self.key == "rune":
            return "PanelKey(%r, rune %r)" % (self.panel_id, self.text)
        return "PanelKey(%r, %r)" % (self.panel_id, self.key)
