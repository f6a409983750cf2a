//! The kernel's confinement, for real: writes, reads and connections a confined command must
//! not make are refused; the same inside its folder succeed.

use std::process::Command;
use std::time::Duration;

use vouch_process::{EnvPolicy, Options, Sandbox, run};

/// Runs `script` with bash, confined to write only in `dir`.
fn confined(dir: &std::path::Path, script: &str) -> vouch_process::Finished {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(script).current_dir(dir);
    EnvPolicy::default().apply(&mut cmd);
    let sandbox = Sandbox::new(vec![dir.to_owned()]);
    run(
        cmd,
        &Options::new(Duration::from_secs(20))
            .merged()
            .sandboxed(sandbox),
    )
    .unwrap()
}

fn enforced() -> bool {
    let missing = vouch_process::support().missing(&Sandbox::default());
    if !missing.is_empty() {
        eprintln!("skipped: {}", missing.join("; "));
    }
    missing.is_empty()
}

#[test]
fn writes_outside_the_folder_are_refused_and_inside_they_succeed() {
    if !enforced() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let inside = root.path().join("work");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let target = outside.join("escaped.txt");
    let t = target.display();
    for script in [
        format!("echo x > {t}"),
        "cd .. && echo x > outside/escaped.txt".to_owned(),
        format!("echo x > /proc/self/root{t}"),
        format!(
            "ln -s {} link && echo x > link/escaped.txt",
            outside.display()
        ),
        format!("python3 -c \"open('{t}', 'w').write('x')\""),
        format!("echo x | tee {t}"),
        format!("echo x > in.txt && cp in.txt {t}"),
        format!("dd if=/dev/zero of={t} bs=1 count=1"),
    ] {
        let done = confined(&inside, &script);
        assert!(
            !target.exists(),
            "escaped with `{script}`: {}",
            done.stdout_text()
        );
        assert!(
            !done.succeeded(),
            "`{script}` reported success: {}",
            done.stdout_text()
        );
    }
    let honest = confined(&inside, "echo x > inside.txt && cat inside.txt");
    assert!(honest.succeeded(), "{}", honest.stdout_text());
    assert_eq!(
        std::fs::read_to_string(inside.join("inside.txt")).unwrap(),
        "x\n"
    );
}

#[test]
fn secrets_and_other_folders_are_unreadable() {
    if !enforced() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let inside = root.path().join("work");
    let home = root.path().join("home");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    let done = confined(&inside, &format!("cat {}/.ssh/id_rsa", home.display()));
    assert!(
        !done.stdout_text().contains("PRIVATE KEY"),
        "{}",
        done.stdout_text()
    );
    assert!(!done.succeeded());
    std::fs::write(inside.join("mine.txt"), "mine").unwrap();
    let honest = confined(&inside, "cat mine.txt");
    assert_eq!(honest.stdout_text(), "mine");
}

#[test]
fn connections_out_are_refused() {
    if !enforced() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let done = confined(
        dir.path(),
        &format!(
            "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2); print('connected')\""
        ),
    );
    assert!(
        !done.stdout_text().contains("connected"),
        "{}",
        done.stdout_text()
    );
    listener.set_nonblocking(true).unwrap();
    assert!(
        listener.accept().is_err(),
        "a connection reached the listener"
    );
}
