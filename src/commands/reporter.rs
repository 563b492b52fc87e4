//! The printer as the API layer's [`Reporter`]: waits as plain lines on stderr, requests with
//! `-v`, their details with `-vv`, and every credential masked from then on.

use crate::api::report::{Credential, Reporter};
use crate::output::Printer;

impl Reporter for Printer {
    fn on_wait(&self, line: &str) {
        self.err(line);
    }

    fn on_request(&self, line: &str) {
        self.info(line);
    }

    fn on_detail(&self, line: &str) {
        self.debug(line);
    }

    fn on_credential(&self, credential: Credential<'_>) {
        match credential {
            Credential::Basic { key_id, key_secret } => {
                self.add_basic_credentials(key_id, key_secret);
            }
            Credential::Bearer(token) => self.add_secret(token),
        }
    }
}
