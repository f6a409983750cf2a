//! Finding programs on `PATH` and quoting words for a POSIX shell.

use std::ffi::OsStr;
use std::path::PathBuf;

/// Returns the first executable file named `name` in the directories of `path` (a `PATH`
/// value).
pub fn find_on_path(name: &str, path: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Returns the first executable file named `name` on this process's `PATH`.
pub fn find_on_process_path(name: &str) -> Option<PathBuf> {
    find_on_path(name, &std::env::var_os("PATH")?)
}

/// Quotes `s` as one word for a POSIX shell (unquoted when it is plainly safe).
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(shell_quote("tests/a.py"), "tests/a.py");
        assert_eq!(shell_quote("my file's.py"), r"'my file'\''s.py'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn programs_are_found_only_when_executable() {
        let dir = std::env::temp_dir().join(format!("vouch-process-path-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("plain"), "").unwrap();
        assert_eq!(find_on_path("plain", dir.as_os_str()), None);
        assert!(find_on_path("sh", OsStr::new("/bin:/usr/bin")).is_some());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
