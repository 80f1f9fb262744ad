"""Streamlit's own English that no parameter can change, covered in Chinese by a few CSS rules.

The form hint "Press Enter to submit form" and the uploader's "Drag and drop file here /
Limit 200MB per file" are hidden (each page says what to do in Chinese next to the widget);
the uploader's "Browse files"/"Upload" button is relabelled 选择文件.
"""

from __future__ import annotations

import streamlit as st

CSS = """<style>
[data-testid=InputInstructions]{display:none}
[data-testid=stFileUploaderDropzoneInstructions]{display:none}
[data-testid=stFileUploaderDropzone] button, [data-testid=stFileUploaderDropzone] button *{font-size:0}
[data-testid=stFileUploaderDropzone] button::after{content:"选择文件";font-size:0.875rem}
</style>"""


def chinese_chrome() -> None:
    st.html(CSS)
