"""Sweep 9 programs after the vision tutorials of pytorch.org: a spatial transformer network (a localisation net
whose last layer starts at the identity transform, affine_grid and grid_sample), neural style transfer as the
tutorial builds it (Normalization, ContentLoss and StyleLoss layers inserted into a copied feature extractor, the
model cut after the last loss, LBFGS on the input image with clamp_ in the closure), FGSM adversarial examples
(the gradient of the loss with respect to the input, sign, clamp, accuracy per epsilon) and the DCGAN recipe's
weights_init by class name with a generator and discriminator trained a few steps.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep9.py). Parameters and images come from NumPy so both libraries start from the same numbers."""
import copy

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


def _images(torch, seed, *shape, device):
    return torch.tensor(np.random.default_rng(seed).random(shape), dtype=torch.float32, device=device)


# ---- a spatial transformer network ------------------------------------------------------------------------------
def spatial_transformer(torch, device):
    nn = torch.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3)
            self.conv2 = nn.Conv2d(4, 8, kernel_size=3)
            self.conv2_drop = nn.Dropout2d(p=0.0)
            self.fc1 = nn.Linear(8 * 2 * 2, 16)
            self.fc2 = nn.Linear(16, 3)
            self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.MaxPool2d(2, stride=2),
                                              nn.ReLU(True), nn.Conv2d(4, 6, kernel_size=3),
                                              nn.MaxPool2d(2, stride=2), nn.ReLU(True))
            self.fc_loc = nn.Sequential(nn.Linear(6 * 2 * 2, 8), nn.ReLU(True), nn.Linear(8, 3 * 2))

        def stn(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 6 * 2 * 2)
            theta = self.fc_loc(xs)
            theta = theta.view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False), theta

        def forward(self, x):
            x, theta = self.stn(x)
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 8 * 2 * 2)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, p=0.0, training=self.training)
            return F.log_softmax(self.fc2(x), dim=1), theta

    model = Net().to(device)
    init_from_numpy(torch, model, 61)
    model.fc_loc[2].weight.data.zero_()
    model.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))
    data = _images(torch, 62, 6, 1, 14, 14, device=device)
    target = torch.tensor([0, 1, 2, 0, 1, 2], device=device)
    with torch.no_grad():
        warped, theta0 = model.stn(data)
    identity_error = (warped - data).abs().max().item()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for epoch in range(4):
        model.train()
        optimizer.zero_grad()
        output, theta = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        output, theta = model(data)
        test_loss = F.nll_loss(output, target, reduction="sum").item()
        pred = output.max(1, keepdim=True)[1]
        correct = pred.eq(target.view_as(pred)).sum().item()
        transformed = model.stn(data)[0].cpu()
    grid = F.affine_grid(torch.tensor([[[0.8, 0.2, 0.1], [-0.2, 0.8, 0.0]]]), (1, 1, 3, 3), align_corners=True)
    return {"theta0": _rounded(theta0[0]), "identity_error": identity_error < 1e-5, "losses": losses,
            "test_loss": test_loss, "correct": correct, "theta": _rounded(theta[0], 4),
            "transformed": _rounded(transformed[0, 0, 5], 4), "grid": _rounded(grid)}


# ---- neural style transfer as the tutorial builds it ----------------------------------------------------------
def style_transfer_lbfgs(torch, device):
    nn = torch.nn
    F = nn.functional

    class ContentLoss(nn.Module):
        def __init__(self, target):
            super().__init__()
            self.target = target.detach()

        def forward(self, input):
            self.loss = F.mse_loss(input, self.target)
            return input

    def gram_matrix(input):
        a, b, c, d = input.size()
        features = input.view(a * b, c * d)
        G = torch.mm(features, features.t())
        return G.div(a * b * c * d)

    class StyleLoss(nn.Module):
        def __init__(self, target_feature):
            super().__init__()
            self.target = gram_matrix(target_feature).detach()

        def forward(self, input):
            self.loss = F.mse_loss(gram_matrix(input), self.target)
            return input

    class Normalization(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def forward(self, img):
            return (img - self.mean) / self.std

    cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(8, 8, 3, padding=1),
                        nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
                        nn.Conv2d(8, 8, 3, padding=1)).to(device).eval()
    init_from_numpy(torch, cnn, 63)
    normalization_mean = torch.tensor([0.485, 0.456, 0.406], device=device)
    normalization_std = torch.tensor([0.229, 0.224, 0.225], device=device)
    style_img = _images(torch, 64, 1, 3, 12, 12, device=device)
    content_img = _images(torch, 65, 1, 3, 12, 12, device=device)
    content_layers, style_layers = ["conv_3"], ["conv_1", "conv_2", "conv_3", "conv_4"]
    cnn = copy.deepcopy(cnn)
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses, style_losses = [], []
    model = nn.Sequential(normalization)
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = f"pool_{i}"
        else:
            raise RuntimeError(f"Unrecognized layer: {layer.__class__.__name__}")
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break
    model = model[:(i + 1)]
    names = [name for name, _ in model.named_children()]
    input_img = content_img.clone()
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = torch.optim.LBFGS([input_img])
    run = [0]
    history = []
    while run[0] <= 12:
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = sum(sl.loss for sl in style_losses) * 1000.0
            content_score = sum(cl.loss for cl in content_losses)
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            if run[0] % 4 == 0:
                history.append([round(style_score.item(), 4), round(content_score.item(), 4)])
            return style_score + content_score
        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return {"names": names, "history": history, "runs": run[0], "mean": round(input_img.mean().item(), 4),
            "gram": _rounded(gram_matrix(style_img)[:2, :2]), "requires_grad": [p.requires_grad for p in
                                                                                 model.parameters()][:2]}


# ---- FGSM adversarial examples --------------------------------------------------------------------------------
def fgsm_attack_program(torch, device):
    nn = torch.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, 1)
            self.conv2 = nn.Conv2d(4, 8, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.fc1 = nn.Linear(8 * 3 * 3, 16)
            self.fc2 = nn.Linear(16, 4)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            return F.log_softmax(self.fc2(x), dim=1)

    model = Net().to(device)
    init_from_numpy(torch, model, 66)
    images = _images(torch, 67, 20, 1, 10, 10, device=device)
    model.eval()
    with torch.no_grad():
        labels = model(images).argmax(1)  # the clean predictions are right by construction

    def fgsm_attack(image, epsilon, data_grad):
        sign_data_grad = data_grad.sign()
        perturbed_image = image + epsilon * sign_data_grad
        return torch.clamp(perturbed_image, 0, 1)

    def denorm(batch, mean=[0.1307], std=[0.3081]):
        if isinstance(mean, list):
            mean = torch.tensor(mean).to(device)
        if isinstance(std, list):
            std = torch.tensor(std).to(device)
        return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)

    def test(epsilon):
        correct, adv_examples = 0, []
        for k in range(images.size(0)):
            data, target = images[k:k + 1].clone(), labels[k:k + 1]
            data.requires_grad = True
            output = model(data)
            init_pred = output.max(1, keepdim=True)[1]
            if init_pred.item() != target.item():
                continue
            loss = F.nll_loss(output, target)
            model.zero_grad()
            loss.backward()
            data_grad = data.grad.data
            data_denorm = denorm(data)
            perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
            perturbed_data_normalized = (perturbed_data - 0.1307) / 0.3081
            output = model(perturbed_data_normalized)
            final_pred = output.max(1, keepdim=True)[1]
            if final_pred.item() == target.item():
                correct += 1
            elif len(adv_examples) < 2:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), round(float(adv_ex.mean()), 4)))
        return correct / float(len(images)), adv_examples

    accuracies, examples = [], []
    for eps in [0, 0.05, 0.2, 0.4]:
        acc, ex = test(eps)
        accuracies.append(acc)
        examples.append(ex)
    return {"accuracies": accuracies, "examples": examples}


# ---- DCGAN: weights_init by class name, a generator and a discriminator trained a few steps -------------------
def dcgan_weights_init(torch, device):
    nn = torch.nn
    nz, ngf, ndf, nc = 8, 4, 4, 1

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
                nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

        def forward(self, input):
            return self.main(input)

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2),
                nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())

        def forward(self, input):
            return self.main(input)

    netG, netD = Generator().to(device), Discriminator().to(device)
    torch.manual_seed(999)
    netG.apply(weights_init)
    netD.apply(weights_init)
    stds = [round(netG.main[0].weight.std().item(), 1), round(netD.main[3].weight.mean().item(), 0)]
    init_from_numpy(torch, netG, 68)
    init_from_numpy(torch, netD, 69)
    criterion = nn.BCELoss()
    fixed_noise = torch.tensor(np.random.default_rng(70).standard_normal((4, nz, 1, 1)), dtype=torch.float32,
                               device=device)
    real_label, fake_label = 1.0, 0.0
    optimizerD = torch.optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
    real = _images(torch, 71, 4, 1, 16, 16, device=device) * 2 - 1
    G_losses, D_losses = [], []
    for i in range(3):
        netD.zero_grad()
        b_size = real.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        fake = netG(fixed_noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        G_losses.append(errG.item())
        D_losses.append(errD.item())
    with torch.no_grad():
        fake = netG(fixed_noise).detach().cpu()
    return {"stds": stds, "G": G_losses, "D": D_losses, "D_x": D_x, "D_G_z2": D_G_z2, "fake": list(fake.shape),
            "fake_mean": round(fake.mean().item(), 5)}


# ---- the channels-last memory format tutorial: strides, conversion, a model and its outputs in NHWC ------------
def channels_last_memory_format(torch, device):
    nn = torch.nn
    N, C, H, W = 2, 3, 6, 5
    x = torch.empty(N, C, H, W, device=device)
    found = {"nchw": x.stride()}
    x = x.to(memory_format=torch.channels_last)
    found["converted"] = [list(x.shape), x.stride(), x.is_contiguous(), x.is_contiguous(
        memory_format=torch.channels_last)]
    found["back"] = x.to(memory_format=torch.contiguous_format).stride()
    found["direct"] = torch.empty(N, C, H, W, memory_format=torch.channels_last, device=device).stride()
    found["contiguous"] = x.contiguous(memory_format=torch.channels_last).stride()
    special = torch.empty(4, 1, 4, 4).to(memory_format=torch.channels_last)
    found["ambiguous"] = [special.is_contiguous(), special.is_contiguous(memory_format=torch.channels_last)]
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 2, 1)).to(device)
    init_from_numpy(torch, model, 72)
    model = model.to(memory_format=torch.channels_last)
    found["weight"] = model[0].weight.stride()
    inp = _images(torch, 73, N, C, H, W, device=device).to(memory_format=torch.channels_last)
    out = model(inp)
    found["out"] = [out.stride(), out.is_contiguous(memory_format=torch.channels_last), _rounded(out[0, :, 0, 0])]
    found["elementwise"] = [(inp * 2 + 1).stride(), inp.relu().stride(), inp.clone().stride()]
    out.sum().backward()
    found["grad"] = model[0].weight.grad.stride()
    return found


PROGRAMS = [spatial_transformer, style_transfer_lbfgs, fgsm_attack_program, dcgan_weights_init,
            channels_last_memory_format]
NEEDS_CPP = {}
