#[test]
fn health_is_ok() {
    assert!(app::health() == "ok");
}
