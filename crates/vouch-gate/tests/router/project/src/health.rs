pub fn health() -> &'static str {
    "ok"
}
