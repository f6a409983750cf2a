//! Integration tests of running children: exit codes, standard input, merged and separate
//! output, caps, deadlines that kill whole process groups.

mod children;
