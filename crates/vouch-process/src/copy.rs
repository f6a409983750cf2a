//! Copying a folder's contents: a test's fixture into its fresh folder, a task's template into
//! its working folder.

use std::path::Path;

/// Copies the contents of `from` into `to` (made when missing), without recursion on the call
/// stack; a symbolic link is copied as what it points to.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut stack = vec![(from.to_owned(), to.to_owned())];
    while let Some((src, dst)) = stack.pop() {
        std::fs::create_dir_all(&dst)?;
        for entry in std::fs::read_dir(&src)? {
            let entry = entry?;
            let target = dst.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push((entry.path(), target));
            } else {
                std::fs::copy(entry.path(), target)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_copied_with_its_files() {
        let from = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(from.path().join("a/b")).unwrap();
        std::fs::write(from.path().join("a/b/c.txt"), "c").unwrap();
        std::fs::write(from.path().join("top.txt"), "t").unwrap();
        let to = tempfile::tempdir().unwrap();
        copy_dir(from.path(), &to.path().join("copy")).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.path().join("copy/a/b/c.txt")).unwrap(),
            "c"
        );
        assert_eq!(
            std::fs::read_to_string(to.path().join("copy/top.txt")).unwrap(),
            "t"
        );
    }
}
