/* answers.h: the pre-rendered answers of the ceiling servers, byte for byte
 * those of examples/weather (weather-server) to the benchmark's requests, so
 * that every server writes the same bytes and the client checks them alike. */
#ifndef BENCH_ANSWERS_H
#define BENCH_ANSWERS_H

/* Around the id. */
#define ANSWER_HEAD "{\"jsonrpc\":\"2.0\",\"id\":"

static const char INIT_TAIL[] =
    ",\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":false}},"
    "\"serverInfo\":{\"name\":\"weather\",\"title\":\"Weather\",\"version\":\"1.0.0\"},\"instructions\":\"Ask "
    "for current conditions, a forecast, or temperatures of several cities.\"}}\n";

static const char CALL_TAIL[] =
    ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\n  \\\"temperature\\\": 16.2,\\n  "
    "\\\"humidity\\\": 0.83,\\n  \\\"conditions\\\": \\\"Overcast\\\"\\n}\"}],\"structuredContent\":{"
    "\"temperature\":16.2,\"humidity\":0.83,\"conditions\":\"Overcast\"},\"isError\":false}}\n";

static const char UNKNOWN_TAIL[] = ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n";

#endif
