//! How the API layer says what it does: the [`Reporter`] trait its caller implements (the
//! printer, at the top), so that nothing in `api` holds or knows the printer.

/// A credential an API sends, as handed to [`Reporter::on_credential`].
#[derive(Clone, Copy)]
pub enum Credential<'a> {
    /// A key id and key secret, sent as HTTP Basic.
    Basic {
        /// Key id.
        key_id: &'a str,
        /// Key secret.
        key_secret: &'a str,
    },
    /// A bearer token.
    Bearer(&'a str),
}

/// Receives what the API layer has to say while it works; each method gets a finished line and
/// decides whether and where it shows. The wording stays in `api`, the showing with the caller.
pub trait Reporter: Send + Sync + std::fmt::Debug {
    /// A wait worth a word while no spinner shows it (`waiting 3s: the cloud API asked to wait
    /// (...)`): said to the user.
    fn on_wait(&self, line: &str);
    /// One request's outcome (`GET /v1/organizations/o/services 200 12ms`), or the failure that
    /// left it without an answer: a log line.
    fn on_request(&self, line: &str);
    /// A detail of one request: a retry, a pacing wait, a body's size, a request id.
    fn on_detail(&self, line: &str);
    /// A credential an API will send: whatever is shown or written from now on must mask it,
    /// including the forms a server may echo back.
    fn on_credential(&self, credential: Credential<'_>);
}

#[cfg(test)]
pub(crate) mod recorder {
    use std::sync::Mutex;

    use super::{Credential, Reporter};

    /// Keeps every line reported, each with the method that got it, for tests to read.
    #[derive(Debug, Default)]
    pub(crate) struct Recorder {
        lines: Mutex<Vec<String>>,
    }

    impl Recorder {
        /// The lines so far, as `wait: ...`, `request: ...`, `detail: ...`, `credential`.
        pub(crate) fn lines(&self) -> Vec<String> {
            self.lines.lock().unwrap().clone()
        }

        fn push(&self, line: String) {
            self.lines.lock().unwrap().push(line);
        }
    }

    impl Reporter for Recorder {
        fn on_wait(&self, line: &str) {
            self.push(format!("wait: {line}"));
        }
        fn on_request(&self, line: &str) {
            self.push(format!("request: {line}"));
        }
        fn on_detail(&self, line: &str) {
            self.push(format!("detail: {line}"));
        }
        fn on_credential(&self, _: Credential<'_>) {
            self.push("credential".to_string());
        }
    }
}
