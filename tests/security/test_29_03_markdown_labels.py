"""#29 item 3: the 「最近问过」 buttons rendered the question as Markdown, so `/?q=退费？![i](http://…/evil-pixel.png)`
or a pasted student message made the browser fetch a remote image.

Streamlit renders Markdown in the labels of buttons, expanders, toasts, tabs, select boxes and the other widgets.
This test reads every such call in app_pages/, ui/ and the router and accepts a label only when it cannot carry
text we did not write: a literal, a module constant (NAMES_IN_CAPS), a number (a numeric format such as {n:d}),
len(...), or md_escape(...) — the one helper (ui/escape.py). A page test then shows the Ask page's button.
"""

from __future__ import annotations

import ast

import pytest

from tests.paths import ROOT

LABELLED = {"button", "form_submit_button", "download_button", "link_button", "page_link", "expander", "popover",
            "toast", "tabs", "selectbox", "multiselect", "radio", "checkbox", "toggle", "pills", "segmented_control",
            "metric", "text_input", "text_area", "number_input", "slider", "select_slider", "file_uploader",
            "date_input", "time_input", "color_picker", "camera_input", "chat_input"}
NUMERIC_FORMATS = set("dfgeGEn%xXob")
# (file, name): why that variable can only hold our own words.
KNOWN_CONSTANT = {
    ("app_pages/tuning.py", "outcome"): "a loop over OUTCOMES, the metric names",
    ("app_pages/tuning.py", "label"): "a loop over the fixed list of rate names just above it",
}
# Label builders that escape everything they did not write themselves, each with the test that shows it.
ESCAPING_BUILDERS = {
    "topic_title": "ui/gaps_view.py, tests/app/test_gap_views.py::test_topic_title_counts_and_escapes",
}
FILES = sorted([*ROOT.glob("app_pages/*.py"), *ROOT.glob("ui/*.py"), ROOT / "streamlit_app.py"])


def is_constant_name(node: ast.AST) -> bool:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Attribute) and node.attr.isupper():
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id.isupper()


def safe(node: ast.AST, file: str) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, int, float)) or node.value is None
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return name in ("md_escape", "len") or name in ESCAPING_BUILDERS
    if isinstance(node, ast.JoinedStr):
        return all(safe(part, file) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        spec = ast.unparse(node.format_spec) if node.format_spec is not None else ""
        return bool(spec) and spec.rstrip("'\"")[-1:] in NUMERIC_FORMATS or safe(node.value, file)
    if isinstance(node, ast.BinOp):
        return safe(node.left, file) and safe(node.right, file)
    if isinstance(node, ast.IfExp):
        return safe(node.body, file) and safe(node.orelse, file)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(safe(element, file) for element in node.elts)
    if isinstance(node, ast.Name) and (file, node.id) in KNOWN_CONSTANT:
        return True
    return is_constant_name(node)


def labels() -> list[tuple[str, int, str, ast.AST]]:
    found = []
    for path in FILES:
        file = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LABELLED:
                label = node.args[0] if node.args else next(
                    (k.value for k in node.keywords if k.arg in ("label", "body", "tabs")), None)
                if label is not None:
                    found.append((file, node.lineno, node.func.attr, label))
    return found


def test_29_03_the_scan_sees_the_label_calls():
    calls = {call for _, _, call, _ in labels()}
    assert {"button", "expander", "toast", "tabs", "selectbox"} <= calls and len(labels()) > 60


def test_29_03_no_widget_label_carries_unescaped_text():
    unsafe = [f"{file}:{line}: st.{call}({ast.unparse(label)[:80]})" for file, line, call, label in labels()
              if not safe(label, file)]
    assert unsafe == [], "labels render Markdown: wrap text we did not write in md_escape(...)\n" + "\n".join(unsafe)


@pytest.mark.parametrize("label,ok", [("'提问'", True), ("md_escape(question)", True), ("question", False),
                                      ("f'#{item:d}'", True), ("f'#{item}'", False), ("f'共 {len(x)} 个'", True),
                                      ("LABELS['k']", True), ("f'「{file}」'", False), ("'a' + name", False)])
def test_29_03_the_rule_itself(label, ok):
    assert safe(ast.parse(label, mode="eval").body, "x.py") is ok


def test_29_03_recent_question_button_shows_the_markdown_as_text(open_app):
    question = "退费？![i](http://127.0.0.1:9/evil-pixel.png)"
    at = open_app()
    at.text_input(key="question").set_value(question)
    at.button(key="ask").click().run()
    (button,) = [b for b in at.button if b.key == "recent_0"]
    assert button.label != question and "\\!" in button.label and "\\[" in button.label
