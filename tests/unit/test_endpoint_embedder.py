"""The OpenAI-compatible embeddings endpoint embedder against a small local endpoint: what it sends, what it makes
of the answer (order, unit length, dimension), what it refuses (a remote host unless allowed, a URL with a key
in it, a model the endpoint does not serve), and that it is chosen by name like the local one."""

from __future__ import annotations

import math

import pytest

from synapse_graph.embedders import embedder_from
from synapse_graph.embedders.endpoint import OpenAIEmbedder
from synapse_graph.errors import ConfigurationError, EmbedderUnavailableError
from tests.embedding_server import embeddings_endpoint
from tests.integration.test_recall import TrigramEmbedder


def test_it_embeds_in_batches_in_order_at_unit_length() -> None:
    texts = ["Melanie has a cat named Oliver.", "Caroline went to the support group.", "an automobile", "x"]
    with embeddings_endpoint() as endpoint:
        embedder = OpenAIEmbedder(endpoint.url + "/v1/", "fake-embed", api_key="k-123", batch_size=3)
        assert embedder.dimensions == 384 and embedder.name == "fake-embed"  # asked once, with one text
        vectors = embedder.embed(texts)
    expected = TrigramEmbedder().embed(texts)
    assert len(vectors) == 4
    for got, want in zip(vectors, expected, strict=True):
        assert math.isclose(math.sqrt(sum(x * x for x in got)), 1.0, rel_tol=1e-9)
        assert got == pytest.approx(want)  # the endpoint scaled them and sent them in reverse order
    assert [r["input"] for r in endpoint.requests] == [["dimension probe"], texts[:3], texts[3:]]
    assert {r["model"] for r in endpoint.requests} == {"fake-embed"}
    assert {h["Authorization"] for h in endpoint.headers} == {"Bearer k-123"}


def test_a_given_dimension_asks_nothing_and_a_wrong_one_is_refused() -> None:
    with embeddings_endpoint() as endpoint:
        embedder = OpenAIEmbedder(endpoint.url, "fake-embed", dimensions=768)
        assert endpoint.requests == []
        with pytest.raises(EmbedderUnavailableError, match=r"384 dimensions .* not 768"):
            embedder.embed(["a cat"])


def test_endpoint_errors_say_what_happened() -> None:
    with embeddings_endpoint() as endpoint:
        with pytest.raises(EmbedderUnavailableError, match="HTTP 404: model 'other' not found"):
            OpenAIEmbedder(endpoint.url, "other")
        embedder = OpenAIEmbedder(endpoint.url, "fake-embed")
        endpoint.fail_with = 503
        with pytest.raises(EmbedderUnavailableError, match="HTTP 503: the model is loading"):
            embedder.embed(["a cat"])
        url = endpoint.url
    with pytest.raises(EmbedderUnavailableError, match="could not be reached"):
        OpenAIEmbedder(url, "fake-embed")  # the endpoint is gone


@pytest.mark.parametrize("url", ["http://10.1.2.3:11434", "https://embeddings.example.com", "http://[2001:db8::1]:80"])
def test_a_remote_endpoint_is_refused_unless_allowed(url: str) -> None:
    with pytest.raises(ConfigurationError, match=r"not on this machine: memories .* allow_remote=True"):
        OpenAIEmbedder(url, "fake-embed", dimensions=384)
    assert OpenAIEmbedder(url, "fake-embed", dimensions=384, allow_remote=True).base_url == url.rstrip("/")


@pytest.mark.parametrize(("url", "says"), [
    ("ftp://127.0.0.1/x", "not an http"), ("http://user:secret@127.0.0.1:8080", "SYNAPSE_EMBEDDER_API_KEY"),
    ("", "empty")])
def test_a_malformed_url_is_refused(url: str, says: str) -> None:
    with pytest.raises(ConfigurationError, match=says):
        OpenAIEmbedder(url, "fake-embed", dimensions=384)


def test_embedders_are_chosen_by_name() -> None:
    with embeddings_endpoint() as endpoint:
        chosen = embedder_from(endpoint.url, "fake-embed")
        assert isinstance(chosen, OpenAIEmbedder) and chosen.dimensions == 384
        with pytest.raises(ConfigurationError, match="--embedder-model"):
            embedder_from(endpoint.url)
    with pytest.raises(ConfigurationError, match="unknown embedder 'word2vec'"):
        embedder_from("word2vec")
    with pytest.raises(ConfigurationError, match="not on this machine"):
        embedder_from("http://10.0.0.9:8080", "m")
