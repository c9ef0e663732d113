"""Sweep 9 programs after the sequence tutorials of pytorch.org: seq2seq translation with Bahdanau attention
(teacher forcing, greedy decoding with topk), the char-RNN name classifier (one-hot letters, a hand-written RNN cell
trained with manual updates through p.data.add_) and the char-RNN name generator (category + letter + hidden, o2o,
sampling by topk), and the Transformer language model (PositionalEncoding as a buffer, TransformerEncoder with a
square subsequent mask, batchify/get_batch, clip_grad_norm_, StepLR, perplexity).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep9.py). Parameters come from NumPy; dropout is off so both libraries compute the same numbers."""
import math
import string
import unicodedata

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- seq2seq translation with Bahdanau attention ----------------------------------------------------------------
def seq2seq_attention(torch, device):
    nn = torch.nn
    F = nn.functional
    SOS_token, EOS_token, MAX_LENGTH = 0, 1, 6

    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.0):
            super().__init__()
            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            return self.gru(embedded)

    class BahdanauAttention(nn.Module):
        def __init__(self, hidden_size):
            super().__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)
            return context, weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size, dropout_p=0.0):
            super().__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = BahdanauAttention(hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
            decoder_hidden = encoder_hidden
            decoder_outputs, attentions = [], []
            for i in range(MAX_LENGTH):
                decoder_output, decoder_hidden, attn_weights = self.forward_step(decoder_input, decoder_hidden,
                                                                                 encoder_outputs)
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)
                if target_tensor is not None:
                    decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
                else:
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()
            decoder_outputs = torch.cat(decoder_outputs, dim=1)
            decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
            attentions = torch.cat(attentions, dim=1)
            return decoder_outputs, decoder_hidden, attentions

        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(input))
            query = hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            input_gru = torch.cat((embedded, context), dim=2)
            output, hidden = self.gru(input_gru, hidden)
            return self.out(output), hidden, attn_weights

    rng = np.random.default_rng(51)
    src = rng.integers(2, 12, size=(8, MAX_LENGTH))
    src[:, -1] = EOS_token
    tgt = (src[:, ::-1] % 9) + 2
    tgt[:, -1] = EOS_token
    dataset = torch.utils.data.TensorDataset(torch.LongTensor(src).to(device), torch.LongTensor(tgt.copy()).to(device))
    loader = torch.utils.data.DataLoader(dataset, sampler=torch.utils.data.SequentialSampler(dataset), batch_size=4)
    encoder = EncoderRNN(12, 16).to(device)
    decoder = AttnDecoderRNN(16, 12).to(device)
    init_from_numpy(torch, encoder, 52)
    init_from_numpy(torch, decoder, 53)
    encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.01)
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.01)
    criterion = nn.NLLLoss()
    losses = []
    for epoch in range(3):
        total_loss = 0
        for input_tensor, target_tensor in loader:
            encoder_optimizer.zero_grad()
            decoder_optimizer.zero_grad()
            encoder_outputs, encoder_hidden = encoder(input_tensor)
            decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
            loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
            loss.backward()
            encoder_optimizer.step()
            decoder_optimizer.step()
            total_loss += loss.item()
        losses.append(total_loss / len(loader))
    with torch.no_grad():
        encoder_outputs, encoder_hidden = encoder(dataset[0][0].unsqueeze(0))
        decoder_outputs, decoder_hidden, attentions = decoder(encoder_outputs, encoder_hidden)
        _, topi = decoder_outputs.topk(1)
        decoded_ids = topi.squeeze()
    decoded_words = []
    for idx in decoded_ids:
        if idx.item() == EOS_token:
            decoded_words.append("<EOS>")
            break
        decoded_words.append(str(idx.item()))
    return {"losses": losses, "decoded": decoded_words, "attn_shape": list(attentions.shape),
            "attn_rows": _rounded(attentions.sum(-1)), "hidden": list(decoder_hidden.shape)}


# ---- char-RNN classification: names to languages with a hand-written RNN cell -----------------------------------
def char_rnn_classification(torch, device):
    nn = torch.nn
    all_letters = string.ascii_letters + " .,;'"
    n_letters = len(all_letters)

    def unicode_to_ascii(s):
        return "".join(c for c in unicodedata.normalize("NFD", s)
                       if unicodedata.category(c) != "Mn" and c in all_letters)

    def letter_to_index(letter):
        return all_letters.find(letter)

    def line_to_tensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li, letter in enumerate(line):
            tensor[li][0][letter_to_index(letter)] = 1
        return tensor.to(device)

    category_lines = {"French": ["Béringer", "Lefèvre", "Dubois"], "Italian": ["Rossi", "Bianchi", "Ricci"],
                      "Polish": ["Kowalski", "Nowak", "Wójcik"]}
    category_lines = {k: [unicode_to_ascii(n) for n in v] for k, v in category_lines.items()}
    all_categories = list(category_lines)

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(input_size, hidden_size)
            self.h2h = nn.Linear(hidden_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, input, hidden):
            hidden = torch.tanh(self.i2h(input) + self.h2h(hidden))
            return self.softmax(self.h2o(hidden)), hidden

        def initHidden(self):
            return torch.zeros(1, self.hidden_size, device=device)

    rnn = RNN(n_letters, 24, len(all_categories)).to(device)
    init_from_numpy(torch, rnn, 54)
    criterion = nn.NLLLoss()
    learning_rate = 0.01

    def category_from_output(output):
        top_n, top_i = output.topk(1)
        category_i = top_i[0].item()
        return all_categories[category_i], category_i

    def train(category_tensor, line_tensor):
        hidden = rnn.initHidden()
        rnn.zero_grad()
        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)
        loss = criterion(output, category_tensor)
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)
        return output, loss.item()

    current_loss, all_losses = 0, []
    pairs = [(c, n) for c in all_categories for n in category_lines[c]]
    for it in range(1, 4 * len(pairs) + 1):
        category, line = pairs[(it * 5) % len(pairs)]
        category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long, device=device)
        output, loss = train(category_tensor, line_to_tensor(line))
        current_loss += loss
        if it % len(pairs) == 0:
            all_losses.append(current_loss / len(pairs))
            current_loss = 0
    confusion = torch.zeros(len(all_categories), len(all_categories))
    with torch.no_grad():
        for category, line in pairs:
            hidden = rnn.initHidden()
            line_tensor = line_to_tensor(line)
            for i in range(line_tensor.size()[0]):
                output, hidden = rnn(line_tensor[i], hidden)
            guess, guess_i = category_from_output(output)
            confusion[all_categories.index(category)][guess_i] += 1
    for i in range(len(all_categories)):
        confusion[i] = confusion[i] / confusion[i].sum()
    topv, topi = output.topk(3, 1, True)
    return {"ascii": category_lines["Polish"], "one_hot": line_to_tensor("Jones").nonzero().tolist(),
            "losses": all_losses, "confusion": _rounded(confusion), "top": [_rounded(topv), topi.tolist()],
            "letters": n_letters}


# ---- char-RNN generation: category + letter + hidden, o2o with dropout, greedy sampling ------------------------
def char_rnn_generation(torch, device):
    nn = torch.nn
    all_letters = string.ascii_letters + " .,;'-"
    n_letters = len(all_letters) + 1  # plus EOS
    categories = ["Russian", "Spanish"]
    names = {"Russian": ["Ivanov", "Petrov", "Sokolov"], "Spanish": ["Garcia", "Lopez", "Sanchez"]}

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(len(categories) + input_size + hidden_size, hidden_size)
            self.i2o = nn.Linear(len(categories) + input_size + hidden_size, output_size)
            self.o2o = nn.Linear(hidden_size + output_size, output_size)
            self.dropout = nn.Dropout(0.1)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, category, input, hidden):
            input_combined = torch.cat((category, input, hidden), 1)
            hidden = self.i2h(input_combined)
            output = self.i2o(input_combined)
            output_combined = torch.cat((hidden, output), 1)
            output = self.o2o(output_combined)
            output = self.dropout(output)
            return self.softmax(output), hidden

        def initHidden(self):
            return torch.zeros(1, self.hidden_size, device=device)

    def category_tensor(category):
        tensor = torch.zeros(1, len(categories), device=device)
        tensor[0][categories.index(category)] = 1
        return tensor

    def input_tensor(line):
        tensor = torch.zeros(len(line), 1, n_letters, device=device)
        for li in range(len(line)):
            tensor[li][0][all_letters.find(line[li])] = 1
        return tensor

    def target_tensor(line):
        letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
        letter_indexes.append(n_letters - 1)
        return torch.LongTensor(letter_indexes).to(device)

    rnn = RNN(n_letters, 32, n_letters).to(device)
    init_from_numpy(torch, rnn, 55)
    rnn.dropout.p = 0.0  # both libraries draw dropout masks differently
    criterion = nn.NLLLoss()
    losses = []
    for it in range(12):
        category = categories[it % 2]
        line = names[category][it % 3]
        target_line_tensor = target_tensor(line).unsqueeze_(-1)
        hidden = rnn.initHidden()
        rnn.zero_grad()
        loss = torch.Tensor([0]).to(device)
        line_t = input_tensor(line)
        for i in range(line_t.size(0)):
            output, hidden = rnn(category_tensor(category), line_t[i], hidden)
            loss += criterion(output, target_line_tensor[i])
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-0.005)
        losses.append(loss.item() / line_t.size(0))

    def sample(category, start_letter="A", max_length=8):
        with torch.no_grad():
            input = input_tensor(start_letter)
            hidden = rnn.initHidden()
            output_name = start_letter
            for i in range(max_length):
                output, hidden = rnn(category_tensor(category), input[0], hidden)
                topv, topi = output.topk(1)
                topi = topi[0][0]
                if topi == n_letters - 1:
                    break
                output_name += all_letters[topi]
                input = input_tensor(all_letters[topi])
            return output_name

    return {"losses": losses, "samples": [sample("Russian", "R"), sample("Spanish", "S")],
            "targets": target_tensor("Abc").tolist(), "loss_dtype": str(loss.dtype)}


# ---- the Transformer language model: PositionalEncoding buffer, causal mask, batchify, perplexity -------------
def transformer_language_model(torch, device):
    nn = torch.nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.0, max_len=64):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x):
            x = x + self.pe[:x.size(0)]
            return self.dropout(x)

    class TransformerModel(nn.Module):
        def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.0):
            super().__init__()
            self.model_type = "Transformer"
            self.pos_encoder = PositionalEncoding(d_model, dropout)
            encoder_layers = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
            self.transformer_encoder = nn.TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
            self.embedding = nn.Embedding(ntoken, d_model)
            self.d_model = d_model
            self.linear = nn.Linear(d_model, ntoken)

        def forward(self, src, src_mask=None):
            src = self.embedding(src) * math.sqrt(self.d_model)
            src = self.pos_encoder(src)
            if src_mask is None:
                src_mask = nn.Transformer.generate_square_subsequent_mask(len(src)).to(src.device)
            output = self.transformer_encoder(src, src_mask)
            return self.linear(output)

    def batchify(data, bsz):
        seq_len = data.size(0) // bsz
        data = data[:seq_len * bsz]
        data = data.view(bsz, seq_len).t().contiguous()
        return data.to(device)

    bptt = 8

    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i)
        data = source[i:i + seq_len]
        target = source[i + 1:i + 1 + seq_len].reshape(-1)
        return data, target

    rng = np.random.default_rng(56)
    corpus = np.tile(rng.integers(0, 20, size=13), 8)
    train_data = batchify(torch.tensor(corpus, dtype=torch.long), 4)
    ntokens = 20
    model = TransformerModel(ntokens, 16, 2, 32, 2).to(device)
    init_from_numpy(torch, model, 57)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
    epoch_losses = []
    for epoch in range(2):
        model.train()
        total_loss = 0.0
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            data, targets = get_batch(train_data, i)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            loss = criterion(output_flat, targets)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            total_loss += loss.item()
        epoch_losses.append(total_loss / (batch + 1))
        scheduler.step()
    model.eval()
    total = 0.0
    with torch.no_grad():
        for i in range(0, train_data.size(0) - 1, bptt):
            data, targets = get_batch(train_data, i)
            seq_len = data.size(0)
            output = model(data)
            total += seq_len * criterion(output.view(-1, ntokens), targets).item()
    val_loss = total / (len(train_data) - 1)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    return {"batchified": list(train_data.shape), "losses": epoch_losses, "ppl": math.exp(val_loss),
            "lr": scheduler.get_last_lr(), "mask": mask.tolist(), "pe": _rounded(model.pos_encoder.pe[3, 0, :4]),
            "buffers": [n for n, _ in model.named_buffers()]}


PROGRAMS = [seq2seq_attention, char_rnn_classification, char_rnn_generation, transformer_language_model]
NEEDS_CPP = {}
