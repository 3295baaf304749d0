"""
Extraction on hostile mails: long lines, many candidates, many links, unclosed anchors. Each
once took seconds to minutes (every candidate re-read the line before it); these assert what
is extracted, which the linear reading keeps, and the bound past which nothing is read.
"""

from typing import Dict

from stand_in import StandIn

from tempmail import extract_code, extract_codes, extract_links
from tempmail.extract import MAX_EXTRACTED_CHARS


def mail(text: str = "", html: str = "", subject: str = "") -> Dict[str, str]:
    return {"subject": subject, "text": text, "html": html}


def test_a_100_kb_line_of_digits_holds_no_code_and_a_code_before_it_is_found() -> None:
    digits = "1" * 100_000
    assert extract_codes(mail(digits)) == []
    assert extract_codes(mail("Your code: 482913\n" + digits)) == ["482913"]


def test_a_line_of_thousands_of_candidates_gives_each_distinct_code_once() -> None:
    line = "code " + " ".join(f"{100000 + index % 7}" for index in range(14_000))
    assert extract_codes(mail(line)) == [str(100000 + index) for index in range(7)]
    assert extract_codes(mail(" ".join(["A1B2C3D4"] * 12_000))) == []


def test_a_word_that_makes_a_number_no_code_counts_across_any_run_of_spaces() -> None:
    spaces = " \u00a0" * 50_000
    assert extract_codes(mail("Your code\nOrder #" + spaces + "654321")) == []
    assert extract_codes(mail("Your code\nTel:" + spaces + ": 654321")) == ["654321"]
    assert extract_codes(mail("Your code\nreference" + spaces + "№" + spaces + "654321")) == []
    assert extract_codes(mail("Your code\nhello" + spaces + "654321")) == ["654321"]


def test_thousands_of_links_on_one_line_are_all_found_the_action_ones_first() -> None:
    links = [f"https://b.example/page/{index}" for index in range(2_000)]
    found = extract_links(mail("Unsubscribe " + " ".join(links) + "\nConfirm https://b.example/confirm"))
    assert found == ["https://b.example/confirm"]  # every link on the first line has "Unsubscribe" in its label
    found = extract_links(mail(" ".join(links) + " verify https://b.example/v."))
    assert found[0] == "https://b.example/v" and found[1:] == links


def test_many_unclosed_anchors_give_no_link_and_one_closing_tag_closes_the_first() -> None:
    openings = '<a href="https://x.example/verify">' * 5_000
    assert extract_links(mail(html=openings)) == []
    assert extract_links(mail(html=openings + "Verify</a>")) == ["https://x.example/verify"]
    # A closing tag inside the quoted href: read as JavaScript does, the href is '"https://…', no link.
    assert extract_links(mail(html='<a href="https://x.example/a></a>">' + "<a " * 20_000)) == []
    assert extract_links(mail(html='<a href="https://x.example/a></a>">Verify</a>' + "<a " * 20_000)) == ["https://x.example/a></a>"]


def test_nothing_past_the_bound_is_read() -> None:
    assert extract_codes(mail("x" * MAX_EXTRACTED_CHARS + "\ncode 123456")) == []
    assert extract_codes(mail("x" * (MAX_EXTRACTED_CHARS - 20) + "\ncode 123456")) == ["123456"]


def test_wait_for_code_on_a_50_kb_mail_of_a_code_then_a_line_of_digits_returns_the_code() -> None:
    service = StandIn()
    service.arrive("Your sign-up", "Your code: 482913\n" + "7" * 50_000)
    assert service.client.inbox(service.email()).wait_for_code(timeout=10) == "482913"
    assert extract_code(service.messages[0]) == "482913"
