"""The application under test, played by the standard library's SMTP client: it sends mail to the service's SMTP intake."""

import smtplib
from email.message import EmailMessage
from typing import Optional, Tuple


def send_mail(
    smtp_port: int,
    sender: str,
    to: str,
    subject: str,
    text: Optional[str] = None,
    html: Optional[str] = None,
    attachment: Optional[Tuple[str, bytes]] = None,
) -> None:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, to, subject
    if text is not None:
        mail.set_content(text)
    if html is not None:
        mail.add_alternative(html, subtype="html") if text is not None else mail.set_content(html, subtype="html")
    if attachment is not None:
        mail.add_attachment(attachment[1], maintype="application", subtype="octet-stream", filename=attachment[0])
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=10) as smtp:
        smtp.send_message(mail)
