from metrics.documents.snippets import make_snippet, query_terms


def test_the_query_words_are_marked_where_most_of_them_are():
    text = "alpha beta. " * 30 + "Rivers and forests of the north. " + "gamma delta. " * 30
    snippet = make_snippet(text, "the rivers and Forests", width=60)
    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    marked = [snippet.text[s:e] for s, e in snippet.marks]
    assert marked == ["Rivers", "forests"]  # "the", "and" are too common to mark
    assert "«Rivers» and «forests»" in snippet.marked()


def test_without_a_word_found_the_snippet_is_the_start():
    snippet = make_snippet("one two three four five six", "zebra", width=10)
    assert snippet.text.startswith("one") and snippet.marks == ()


def test_query_terms_fold_case_and_keep_common_words_when_alone():
    assert query_terms("The Rivers") == {"rivers"}
    assert query_terms("the") == {"the"}
    assert query_terms(["A b", "C"]) == {"b", "c"}
