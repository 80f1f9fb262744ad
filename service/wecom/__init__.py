"""The WeChat channel (微信客服 through WeCom): the callback door, the signed and encrypted callback format, the client
of WeCom's API, and the worker that pulls each account's messages, answers them through the same StudentDesk as the
App, and sends the answers within WeCom's limits (docs/wechat.md)."""
