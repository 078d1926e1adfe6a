//! `sns`: an SMS through Amazon SNS `Publish` (Query API), `POST {baseUrl | https://sns.{region}.amazonaws.com}/`,
//! signed with SigV4 (service `sns`; credentials `apiKey` = access key id, `secretKey`, `region`, each
//! required). Form body `Action=Publish&Version=2010-03-31&PhoneNumber&Message` and message attributes:
//! `AWS.SNS.SMS.SMSType=Transactional` always; the sender, when there is one (`overrides.sms.from`, else the
//! integration's `from`), as `AWS.MM.SMS.OriginationNumber` when it is a `+E.164` number, else as the
//! alphanumeric `AWS.SNS.SMS.SenderID`. Success: XML `<PublishResponse><PublishResult><MessageId>`; errors:
//! XML `<ErrorResponse><Error><Type/><Code/><Message/></Error>`, sorted by [`super::aws`].

use super::aws;
use super::registry::Http;
use super::sigv4::AwsKey;
use super::{Accepted, Delivery, Provider, ProviderError, SmsMessage};

const ID: &str = "sns";
const SERVICE: &str = "sns";

pub(crate) struct Sns {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Sns {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let key = AwsKey::of(ID, credentials, SERVICE)?;
        let sms = SmsMessage::of(delivery)?;
        let body = publish(&sms).into_bytes();
        let form = "application/x-www-form-urlencoded";
        let answer = key.send(&self.http, credentials, "sns", "/", form, body).await?;
        let xml = answer.body.text();
        if answer.status.is_success() {
            return Ok(Accepted { provider_message_id: xml_text(xml, "MessageId"), raw: answer.body.raw() });
        }
        let code = xml_text(xml, "Code").unwrap_or_default();
        let message = xml_text(xml, "Message");
        Err(aws::error(ID, &answer, aws::error_code(&code), message.as_deref()))
    }
}

/// The `Publish` form body.
fn publish(sms: &SmsMessage) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    form.append_pair("Action", "Publish")
        .append_pair("Version", "2010-03-31")
        .append_pair("PhoneNumber", &sms.to)
        .append_pair("Message", &sms.text);
    let mut attributes = vec![("AWS.SNS.SMS.SMSType", "Transactional")];
    if let Some(from) = &sms.from {
        let number = from.strip_prefix('+').is_some_and(|digits| digits.bytes().all(|byte| byte.is_ascii_digit()));
        attributes.push((if number { "AWS.MM.SMS.OriginationNumber" } else { "AWS.SNS.SMS.SenderID" }, from));
    }
    for (index, (name, value)) in attributes.into_iter().enumerate() {
        let entry = format!("MessageAttributes.entry.{}", index + 1);
        form.append_pair(&format!("{entry}.Name"), name)
            .append_pair(&format!("{entry}.Value.DataType"), "String")
            .append_pair(&format!("{entry}.Value.StringValue"), value);
    }
    form.finish()
}

/// The text of the first `<tag>` element in `xml`, entities decoded; `None` when absent or empty.
fn xml_text(xml: &str, tag: &str) -> Option<String> {
    let start = xml.find(&format!("<{tag}>"))? + tag.len() + 2;
    let end = start + xml[start..].find(&format!("</{tag}>"))?;
    let text = xml[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
    Some(text.trim().to_owned()).filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_elements_are_read_and_unescaped() {
        let xml = r#"<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type>
            <Code>InvalidParameter</Code><Message>Invalid parameter: PhoneNumber &lt;+1&gt; &amp;c</Message>
            </Error><RequestId>r-1</RequestId></ErrorResponse>"#;
        assert_eq!(xml_text(xml, "Code").as_deref(), Some("InvalidParameter"));
        assert_eq!(xml_text(xml, "Message").as_deref(), Some("Invalid parameter: PhoneNumber <+1> &c"));
        assert_eq!(xml_text(xml, "MessageId"), None);
        assert_eq!(xml_text("<Code></Code>", "Code"), None);
        assert_eq!(xml_text("<Code>unclosed", "Code"), None);
    }
}
