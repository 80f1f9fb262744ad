"""小E core: corpus loading, retrieval, answering with a refusal gate, checks, stores. No Streamlit here."""
